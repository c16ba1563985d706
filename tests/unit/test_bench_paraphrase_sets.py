"""The paraphrase sets that recall's quality is measured and trained on (tests/bench/data):
each request shares no content word with its fact (else full text would find it and the set
would not measure meaning), no text is in two sets (the test set must stay unseen), and the
test set is as large as issue 10 asks."""

import json

import pytest

from bench.bench_memory import PARAPHRASES, PARAPHRASES_DEV, PARAPHRASES_TRAIN, shared_words
from whiteboard import text as T

SETS = {"test": PARAPHRASES, "dev": PARAPHRASES_DEV, "train": PARAPHRASES_TRAIN}


def load(name):
    return json.loads(SETS[name].read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", SETS)
def test_no_request_shares_a_content_word_with_its_fact(name):
    overlapping = [(p["fact"], p["request"]) for p in load(name)["pairs"] if shared_words(p["fact"], p["request"])]
    assert overlapping == []


def test_no_text_is_in_two_sets():
    texts = {}
    for name in SETS:
        data = load(name)
        found = [t for p in data["pairs"] for t in (p["fact"], p["request"])]
        found += data.get("unrelated", []) + data.get("personal", [])
        texts[name] = set(found)
    assert texts["test"].isdisjoint(texts["train"] | texts["dev"]) and texts["dev"].isdisjoint(texts["train"])


def test_the_test_set_is_as_large_as_issue_10_asks():
    data = load("test")
    cjk = [p for p in data["pairs"] if T.cjk_runs(p["fact"])]
    assert len(data["pairs"]) >= 60 and len(cjk) >= 10 and len(data["unrelated"]) >= 20
