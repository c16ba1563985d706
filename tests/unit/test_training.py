"""Training (training/, not shipped): every weight file the package ships records what it was
trained on, none of it under a licence that forbids redistribution (LoCoMo, CC BY-NC 4.0, is a
benchmark only), and each is what its one command makes (`--check`)."""

import json
from pathlib import Path

import numpy as np
import pytest

from training import adapter, extractor, floors, fusion, gate
from training import sources as S
from whiteboard.memory.meaning import embedder as bundled
from whiteboard.memory.meaning.adapter import Adapter

PACKAGE = S.REPO / "host" / "whiteboard"


def shipped_weight_files() -> list[Path]:
    """Every npz in the package, and every JSON file holding weights."""
    found = sorted(PACKAGE.rglob("*.npz"))
    found += [p for p in sorted(PACKAGE.rglob("*.json")) if "weights" in json.loads(p.read_text(encoding="utf-8"))]
    return found


def test_the_four_shipped_weight_files_are_found():
    names = {p.name for p in shipped_weight_files()}
    assert {"extractor.npz", "meaning_adapter.npz", "context_gate.json", "context_gate_e5.json"} <= names


@pytest.mark.parametrize("path", shipped_weight_files(), ids=lambda p: p.name)
def test_every_shipped_weight_file_records_sources_that_allow_redistribution(path):
    assert S.problems(path) == []
    record = S.read(path)
    assert record["command"].startswith("python -m training.")
    for source in record["sources"]:
        assert (S.REPO / source["path"]).exists(), source


def test_a_non_commercial_source_or_no_record_fails(tmp_path):
    record = {"command": "python -m training.x", "sources": [
        {"name": "LoCoMo", "path": "locomo10.json", "licence": "CC-BY-NC-4.0", "rows": 50, "sha256": "0"}]}
    np.savez(tmp_path / "nc.npz", matrix=np.eye(2), sources=np.array(json.dumps(record)))
    assert S.problems(tmp_path / "nc.npz") == [
        "nc.npz: LoCoMo is CC-BY-NC-4.0, not redistributable with the package"]
    np.savez(tmp_path / "bare.npz", matrix=np.eye(2))
    assert S.problems(tmp_path / "bare.npz") == ["bare.npz: no record of what it was trained on"]
    (tmp_path / "gate.json").write_text(json.dumps({"weights": [1.0], "sources": {
        **record, "sources": [{**record["sources"][0], "licence": "CC-BY-NC-SA-4.0"}]}}))
    assert len(S.problems(tmp_path / "gate.json")) == 1
    with pytest.raises(ValueError, match="never training data"):
        S.record("python -m training.x", record["sources"])


def test_the_labelled_set_holds_only_our_own_rows_and_a_foreign_row_is_refused():
    rows = extractor.load_rows(extractor.DEFAULT_DATA)
    assert {r["source"] for r in rows} == {"written"}
    assert extractor.sources_record(rows)["sources"][0]["licence"] == "MIT"
    foreign = [*rows, {**rows[0], "id": "locomo-001", "source": "locomo:conv-26:D1:3", "split": "train"}]
    with pytest.raises(ValueError, match="locomo"):
        extractor.sources_record(foreign)


needs_model = pytest.mark.skipif(bundled.local_embedder() is None, reason="the bundled embedding model is missing")
# Retraining embeds our ~13,500 training texts (about 6 min on a quiet 2-core machine, once per
# run: tests/conftest.py shares the vectors) and fits the adapters again (a map about 80 s, the
# floors and the fusion four each): longer than the suite's 300 s guard against a stall, which
# stays for everything else.
retrains = pytest.mark.timeout(1800)


@pytest.mark.slow
@retrains
@needs_model
@pytest.mark.parametrize("trainer", [extractor, adapter, gate, floors, fusion], ids=lambda m: m.__name__)
def test_each_command_rebuilds_its_shipped_weights(trainer, capsys):
    # Embeds its training texts (once per run, see `retrains`) and trains again: the shipped file
    # is what the documented command makes from the data in the repository, sources included.
    assert trainer.main(["--check"]) == 0, capsys.readouterr().out


def test_the_world_band_sits_under_the_lowest_request_wanting_context_with_a_margin():
    x = np.array([[4.0], [3.0], [-2.0], [-5.0]])
    y = np.array([1, 1, 0, 0])
    # scores of the wanting ones with w = 1, b = -3: 0.73 and 0.5; 0.9 x 0.5 = 0.45 -> 0.1
    assert gate.world_below(x, y, np.array([1.0]), -3.0) == 0.1
    # b = -6: 0.119 and 0.047; 0.9 x 0.047 = 0.043 -> 0.03
    assert gate.world_below(x, y, np.array([1.0]), -6.0) == 0.03
    assert gate.world_below(x, y, np.array([1.0]), -12.0) == gate.WORLD_BELOWS[0]  # none under: the lowest


@pytest.mark.slow
@retrains
@needs_model
def test_no_training_request_wanting_context_reads_as_about_the_world():
    # The "about the world" band (a word hit then needs a close meaning too) sits under every
    # training request wanting context, whichever gate ships.
    from whiteboard.memory.meaning import context_gate
    model = bundled.local_embedder()
    wanting, unrelated, _ = gate.training_data()
    for mapped, ranking_id, path in ((True, model.ranking_id, context_gate.WEIGHTS),
                                     (False, model.model_id, context_gate.FALLBACK_WEIGHTS)):
        shipped = context_gate.load(ranking_id, path)
        x, y = gate.examples(model, wanting, unrelated, mapped)
        about_the_world = [shipped.about_the_world(v.astype(np.float32)) for v in x]
        assert not any(w for w, label in zip(about_the_world, y) if label == 1)
        assert np.mean([w for w, label in zip(about_the_world, y) if label == 0]) > 0.8


def test_a_check_fails_on_other_weights_or_other_sources():
    made = gate.document("model+adapter-x", np.array([0.5, -0.25]), 0.125, {"command": "c", "sources": []}, 0.05)
    requests = np.array([[1.0, 0.0], [0.0, 1.0], [2.0, 2.0]])
    assert gate.same_document(made, json.loads(json.dumps(made)), requests)
    assert gate.same_document(made, {**made, "weights": [0.51, -0.25]}, requests)  # another CPU's drift
    assert not gate.same_document(made, {**made, "weights": [1.0, -0.25]}, requests)
    assert not gate.same_document(made, {**made, "sources": {"command": "c", "sources": [{"name": "other"}]}}, requests)
    assert not gate.same_document(made, {**made, "world_below": 0.02}, requests)  # another band
    matrix = np.eye(3, dtype=np.float32)
    assert adapter.same_matrix(matrix, matrix + adapter.CHECK_TOLERANCE / 2)
    assert not adapter.same_matrix(matrix, matrix + 10 * adapter.CHECK_TOLERANCE)


def test_vectors_are_kept_in_the_folder_the_named_variable_gives_and_only_there(tmp_path, monkeypatch):
    """training/vectors.embed_cached, shared by training (WB_TRAIN_CACHE) and the benchmarks
    (WB_BENCH_CACHE): a second call with the same model, kind and texts reads the file."""
    from training.vectors import embed_cached

    class Counting:
        model_id = "toy"
        calls = 0

        def embed_queries(self, texts):
            Counting.calls += 1
            return np.array([[len(t), 1.0] for t in texts], dtype=np.float64)

        embed_passages = embed_queries

    model = Counting()
    monkeypatch.delenv("WB_TRAIN_CACHE", raising=False)
    monkeypatch.setenv("WB_BENCH_CACHE", str(tmp_path / "bench"))
    first = embed_cached(model, "query", ["a", "bb", "ccc"], batch=2, cache_var="WB_BENCH_CACHE")
    assert first.dtype == np.float32 and first[:, 0].tolist() == [1, 2, 3] and Counting.calls == 2
    again = embed_cached(model, "query", ["a", "bb", "ccc"], cache_var="WB_BENCH_CACHE")
    assert np.array_equal(again, first) and Counting.calls == 2
    assert len(list((tmp_path / "bench").glob("*.npy"))) == 1
    embed_cached(model, "passage", ["a", "bb", "ccc"])  # WB_TRAIN_CACHE unset: nothing kept
    assert Counting.calls == 3 and len(list(tmp_path.rglob("*.npy"))) == 1


def test_processes_sharing_the_folder_embed_each_text_set_once(tmp_path, monkeypatch):
    # The suite's workers share one folder (tests/conftest.py): the second waits for the first's
    # file instead of embedding the same texts again, and never reads a half-written one.
    import threading
    import time

    from training.vectors import embed_cached

    class Slow:
        model_id = "toy"
        calls = 0

        def embed_queries(self, texts):
            Slow.calls += 1
            time.sleep(0.3)
            return np.ones((len(texts), 2))

    monkeypatch.setenv("WB_TRAIN_CACHE", str(tmp_path))
    got = []
    workers = [threading.Thread(target=lambda: got.append(embed_cached(Slow(), "query", ["a", "b"]))) for _ in range(2)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert Slow.calls == 1 and len(got) == 2 and all(np.array_equal(g, got[0]) for g in got)
    assert [p.suffix for p in tmp_path.iterdir() if p.suffix != ".lock"] == [".npy"]


def test_a_map_ranking_below_plain_e5_on_any_held_out_column_is_named():
    from training import recall_eval as E

    plain = {"own": {"de": 0.5, "en": 0.6}, "own_all": 0.55, "third": 0.7}
    assert E.worse_than_plain({"own": {"de": 0.5, "en": 0.7}, "own_all": 0.6, "third": 0.7}, plain) == []
    assert E.worse_than_plain({"own": {"de": 0.4, "en": 0.9}, "own_all": 0.65, "third": 0.8}, plain) == [
        "own vault de 0.400 < 0.500"]
    assert E.worse_than_plain({"own": {"de": 0.5, "en": 0.6}, "own_all": 0.55, "third": 0.6}, plain) == [
        "third person 0.600 < 0.700"]
    asked = {"own": {"de": 0.5, "en": 0.6}, "own_all": 0.55, "third": 0.7}
    assert E.worse_than_plain({**asked, "questions": 0.8}, {**plain, "questions": 0.9}) == [
        "questions about others 0.800 < 0.900"]
    assert E.worse_than_plain({**asked, "subject": 0.6}, {**plain, "subject": 0.61}) == [
        "within a subject 0.600 < 0.610"]


def test_the_penalty_and_share_chosen_keep_third_person_and_questions_about_others():
    from training import adapter as A

    validated = {A.PLAIN: (0.3, 0.3, 0.3, 0.95, 0.5),
                 (0.1, 0.5, 1.0, 512, 1.0): (0.5, 0.7, 0.85, 0.94, 0.6),  # the best own vault, loses questions
                 (0.3, 0.5, 1.0, 512, 0.0): (0.48, 0.68, 0.85, 0.96, 0.4),  # the next, but loses within a subject
                 (0.3, 0.5, 1.0, 512, 1.0): (0.45, 0.65, 0.85, 0.96, 0.6),
                 (0.3, 0.0, 1.0, 0, 1.0): (0.6, 0.6, 0.7, 0.99, 0.6)}  # the best own vault, but third person below 0.80
    assert A.choose(validated) == (0.3, 0.5, 1.0, 512, 1.0)
    assert A.choose({A.PLAIN: (0.3, 0.3, 0.3, 0.95, 0.5),
                     (0.1, 0.5, 1.0, 512, 1.0): (0.5, 0.7, 0.85, 0.94, 0.6)}) is None


def test_the_personal_floor_is_the_highest_that_costs_neither_vault_more_than_the_margin():
    # 2026-11-29's folds: the own vault alone would take 0.35; among sentences about others it
    # costs 0.20 there, and 0.05 at 0.3.
    by_floor = {0.2: (0.43, 0.93), 0.25: (0.43, 0.93), 0.3: (0.43, 0.88), 0.35: (0.42, 0.73), 0.4: (0.38, 0.54)}
    assert floors.highest_within(by_floor) == 0.25
    assert floors.highest_within({f: (own,) for f, (own, _) in by_floor.items()}) == 0.35


def test_of_own_vaults_within_the_tie_the_best_third_person_is_chosen():
    from training import adapter as A

    validated = {A.PLAIN: (0.3, 0.3, 0.3, 0.95, 0.5),
                 (0.3, 0.5, 1.0, 512, 1.0): (0.45, 0.65, 0.85, 0.96, 0.6),  # the best own vault: 0.55
                 (0.3, 0.5, 0.75, 512, 1.0): (0.46, 0.63, 0.93, 0.96, 0.6),  # 0.545: in the tie, better third
                 (0.3, 0.5, 0.5, 512, 1.0): (0.44, 0.64, 0.99, 0.96, 0.6)}  # 0.54: outside it
    assert A.choose(validated) == (0.3, 0.5, 0.75, 512, 1.0)
    assert A.choose({k: v for k, v in validated.items() if k[2] != 0.75}) == (0.3, 0.5, 1.0, 512, 1.0)


def test_no_held_out_question_or_its_sentence_trains_the_questions_group():
    from training import adapter as A
    from training import recall_data as R

    asked = R.questions()
    held = [q for q in asked if q.held_out]
    assert held and len(held) < len(asked) and len({q.domain for q in held}) == len(R.DOMAINS)
    material = A.material(set(A.training_domains()))
    assert material.questions and not any(q.held_out for q in material.questions)
    held_sentences = {s for q in held for s in (q.sentence, *q.namesakes)}
    assert material.asked_elsewhere == held_sentences
    assert not {q.sentence for q in material.questions} & held_sentences
    for q in asked[::53]:  # a question names its sentence's person, whose other two namesakes are apart
        assert q.sentence not in q.namesakes and len(set(q.namesakes)) == 2


def test_the_held_out_split_holds_out_whole_domains_and_phrasings_and_trains_on_none_of_them():
    from training import adapter as A
    from training import recall_data as R

    pairs = R.pairs()
    assert len({d.name for d in R.DOMAINS}) >= 25 and len(pairs) >= 3000
    assert {p.request_language for p in pairs} == set(R.LANGUAGES)
    trained = {p.request for p in pairs if not p.held_out}
    held = {p.request for p in pairs if p.held_out}
    assert trained and held and not trained & held
    assert {p.domain for p in pairs if p.held_out} == {d.name for d in R.DOMAINS} == set(A.training_domains())
    assert not set(R.world(held_out=True)) & set(R.world(held_out=False))
    # Facts are held out too: no held-out pair's fact, and no fact of its vault, is trained on.
    trained_facts = {f for _, _, f in R.facts(held_out=False)}
    assert {p.fact for p in pairs if not p.held_out} <= trained_facts
    material = A.material(set(A.training_domains()))
    assert {t for t, _ in material.requests} == trained and {t for t, _ in material.facts} == trained_facts
    for p in [p for p in pairs if p.held_out][::97]:
        vault = R.own_vault(p)
        assert len(vault) == R.VAULT and vault[0] == p.fact and not set(vault) & trained_facts
        assert vault == R.own_vault(p)  # the same vault every run


def test_cross_validation_never_scores_a_text_it_trained_on():
    from training import adapter as A

    for train, cases in A.folds():
        seen = {t for t, _ in train.requests + train.facts} | {s.request for s in train.specific}
        for kind in (cases, A.subject_cases(train)):
            assert kind and not {t for request, fact, vault, _ in kind for t in (request, *vault)} & seen
            assert {subject for *_, subject in kind} == {True, False}  # both unseen subjects and phrasings


def test_within_subject_labels_name_facts_of_their_language_on_one_side_of_the_split():
    from training import recall_data as R

    labelled = R.specific()
    assert {s.domain for s in labelled} == {d.name for d in R.DOMAINS}
    assert {s.language for s in labelled} == set(R.LANGUAGES)
    for d in R.DOMAINS:
        for lang, items in d.specific.items():
            facts = d.facts[lang]
            for _, positions in items:
                assert positions and len(set(positions)) == len(positions) < len(facts)
                assert all(0 <= i < len(facts) for i in positions)
                # a label never mixes trained and held-out facts, and held-out labels come last
                assert len({R.held_fact(d, lang, facts[i]) for i in positions}) == 1
            sides = [R.held_fact(d, lang, facts[positions[0]]) for _, positions in items]
            assert sides == sorted(sides) and sides[0] is False and sides[-1] is True
    for s in labelled:
        assert s.needs and s.rest and not set(s.needs) & set(s.rest)
    asked = [s.request for s in labelled]
    written = {p.request for p in R.pairs()} | {f for *_, f in R.facts()} | set(R.world(True) + R.world(False))
    assert len(set(asked)) == len(asked) and not set(asked) & written
    held = [s for s in labelled if s.held_out]
    vault = R.subject_vault(held[0], held[0].needs[0])
    assert len(vault) == R.VAULT and vault[0] == held[0].needs[0] and set(held[0].rest) <= set(vault)


def test_a_labelled_request_learns_its_fact_against_its_subjects_others_in_its_own_language():
    from training import adapter as A
    from training import recall_data as R

    class Recording:  # the texts each group embeds, in order
        def __init__(self):
            self.texts = []

        def q(self, texts):
            self.texts.append(texts)
            return np.zeros((len(texts), 2))

        p = q

    m = A.material({"pets", "diet"})
    space = Recording()
    groups = A.specific_groups(space, m)
    assert len(groups) == len(R.LANGUAGES)
    assert sum(weight for *_, weight in groups) == pytest.approx(A.SPECIFIC_WEIGHT)
    assert len(A.groups(space, m, 0.0)) == 2  # without labels: the domain and questions groups alone
    # a fold that leaves out every fact a request needs leaves the request out (no empty softmax target)
    fold = A.material({"pets"}, lambda kind, language, position: kind == "fact" and position < 6)
    kept = A.specific_groups(Recording(), fold)
    assert kept and all(positives.any(axis=1).all() for _, _, positives, _ in kept)
    assert sum(len(positives) for _, _, positives, _ in kept) < len(fold.specific)
    languages = A._languages()
    for (_, _, positives, _), requests, candidates in zip(groups, space.texts[0::2], space.texts[1::2]):
        lang = next(s.language for s in m.specific if s.request == requests[0])
        asked = [s for s in m.specific if s.language == lang]
        assert requests == [s.request for s in asked]
        facts = [t for t in candidates if t in languages]
        assert all(lang in languages[f] for f in facts)  # never a translation of the fact it needs
        for s, row in zip(asked, positives):
            assert {candidates[i] for i in np.flatnonzero(row)} == set(s.needs)
            assert {f for f in s.rest if f in facts}  # its subject's other facts are its negatives


@pytest.mark.slow
@retrains
@needs_model
def test_check_fails_for_weights_that_rank_worse_than_plain_e5(monkeypatch, capsys):
    # A map that keeps 8 of e5's 384 dimensions ranks far below plain e5 on the held-out split:
    # --check must fail for it whatever the shipped file holds.
    def eight_dimensions(space, model_id):
        return Adapter(model_id, np.diag((np.arange(space.dim) < 8).astype(np.float32)), None)

    monkeypatch.setattr(adapter, "trained", eight_dimensions)
    assert adapter.main(["--check"]) == 1
    assert "ranks worse than plain e5 on the held-out split" in capsys.readouterr().out


def test_fusion_chooses_the_lowest_strong_score_that_costs_our_data_nothing():
    # Three full-text distractors ahead of a fact the meanings rank third: kept at their ranks,
    # they push it out of the top 5, so a score they reach is too low to trust.
    def case(score):
        return ("own", ["x", "y", "z"], [score] * 3, ["a", "b", "f", "c"], "f")
    assert fusion.choose([case(5.5), ("third", [], [], ["f"], "f")])[0] == 6.0
    assert fusion.choose([case(7.0), ("third", [], [], ["f"], "f")])[0] == 8.0
    assert fusion.choose([case(99.0), ("third", [], [], ["f"], "f")])[0] is None


@pytest.mark.slow
@retrains
@needs_model
def test_fusion_check_fails_when_recall_ships_another_strong_score(monkeypatch, capsys):
    from whiteboard.memory.recall import recall as RC

    monkeypatch.setattr(RC, "STRONG_WORDS", 16.0)
    assert fusion.main(["--check"]) == 1
    assert "is not what the rule chooses" in capsys.readouterr().out
    monkeypatch.setattr(RC, "STRONG_WORDS", None)  # plain fusion, the baseline, may always ship
    assert fusion.main(["--check"]) == 0


@pytest.mark.slow
@retrains
@needs_model
def test_floors_check_fails_when_the_fallback_ships_another_floor(monkeypatch, capsys):
    monkeypatch.setattr(bundled, "UNMAPPED_PERSONAL_MIN_COSINE", 0.7)
    assert floors.main(["--check"]) == 1
    assert "not what the rules choose" in capsys.readouterr().out


def _scorer_cases(n=60, seed=1):
    """Synthetic cases: K candidates each, the fact the one whose first feature is highest
    (plus noise in the others); the shipped order puts it anywhere."""
    from training import scorer as SC

    rng = np.random.default_rng(seed)
    rows = []
    for _ in range(n):
        x = rng.normal(size=(SC.K, len(SC.FEATURES)))
        pos = int(rng.integers(SC.K))
        x[pos, 0] = x[:, 0].max() + 1.0
        rows.append((x, pos, np.ones(4) / 2, np.ones((SC.K, 4)) / 2))
    return SC._pack(rows)


def test_the_pair_scorer_learns_a_planted_signal_and_ignores_a_dropped_feature():
    from training import scorer as SC

    train, test = _scorer_cases(seed=1), _scorer_cases(seed=2)
    for kind in ("linear", "mlp"):
        s = SC.scorer_for(kind, train)
        first = [int(np.argmax(s.scores(x))) == p for x, p in zip(test.x, test.pos)]
        assert np.mean(first) > 0.9, kind
    # The feature carrying the signal dropped: the scorer can no longer find the fact.
    blind = SC.scorer_for("linear", train, dropped=(SC.FEATURES[0],))
    assert blind.p["w"][0] == 0
    assert np.mean([int(np.argmax(blind.scores(x))) == p for x, p in zip(test.x, test.pos)]) < 0.5


def test_a_reordered_ranking_keeps_strong_words_at_their_rank_and_the_rest_after_k(monkeypatch):
    from training import scorer as SC
    from whiteboard.memory.recall import recall as RC

    strong = 6.0  # the rule's score; recall ships plain fusion (None), where nothing is kept
    monkeypatch.setattr(RC, "STRONG_WORDS", strong)
    # "w" scores as a strong full-text hit at rank 0: wherever a reorder put it, it ends first.
    assert RC.keep_strong(["a", "b", "w", "c"], ["w", "b"], [strong, strong - 1], strong) == ["w", "a", "b", "c"]
    assert RC.keep_strong(["w", "a"], ["w"], [strong], strong) == ["w", "a"]
    # Only the top K are reordered; the rest follow as they were.
    fused = [f"m{i}" for i in range(SC.K + 3)]
    s = SC.scorer_for("linear", _scorer_cases())
    x = np.zeros((SC.K, len(SC.FEATURES)))
    x[SC.K - 1, 0] = 5.0
    order = s.rerank(fused, x)
    assert order[0] == f"m{SC.K - 1}" and order[SC.K:] == fused[SC.K:] and sorted(order) == sorted(fused)
