"""With `[search] embedding_model` set, meaning joins what shares no word — through the embedding
model search uses (litellm against the scripted server), vectors kept for the next run."""

from __future__ import annotations

import json

import pytest
from support.cli import run
from support.eval_workspace import History, request
from support.fake_llm import bag_of_words

MODEL = "openai/fake-embed"
# what the fake model "knows": these phrasings mean the package manager rule
PNPM = ("pnpm", "fast package manager", "パッケージマネージャ")


def meaning(text: str) -> list[float]:
    vec = [0.0] + bag_of_words(text, 31)
    if any(p in text for p in PNPM):
        vec = [100.0] + [0.0] * 31
    return vec


@pytest.fixture
def ws(history: History, fake_llm) -> History:
    fake_llm.embedder = meaning
    (history.root / "memcli.toml").write_text(f'[search]\nembedding_model = "{MODEL}"\n', encoding="utf-8")
    history.commit("2026-01-01T00:00:00Z", {"memory/requests/tests.md": request("Tests use pytest.")})
    history.session("a", "2026-01-02", ["Use pnpm instead of npm."])
    history.session("b", "2026-01-04", ["Install dependencies with the fast package manager, please."])
    history.session("c", "2026-01-05", ["Write the tests with pytest."])
    history.session("d", "2026-01-06", ["Always write the tests with pytest."])
    return history


def _eval(ws: History, capsys) -> tuple[dict, str]:
    code, out, err = run(capsys, "eval", "--path", str(ws.folder), "-w", str(ws.root), "--json")
    assert code == 0
    return json.loads(out), err


def test_meaning_joins_wordings_that_share_no_word(ws: History, capsys, fake_llm) -> None:
    doc, _ = _eval(ws, capsys)
    texts = sorted(sorted(o["text"] for o in r["occurrences"]) for r in doc["repetitions"])
    assert ["Install dependencies with the fast package manager, please.",
            "Use pnpm instead of npm."] in texts
    assert ["Always write the tests with pytest.", "Write the tests with pytest."] in texts
    assert fake_llm.embedding_requests and doc["notes"] == []
    pytest_rep = next(r for r in doc["repetitions"] if "pytest" in r["text"])
    assert pytest_rep["covered_now"] and pytest_rep["repeats"][0]["held_before"] is True


def test_vectors_are_kept_for_the_next_run(ws: History, capsys, fake_llm) -> None:
    _eval(ws, capsys)
    asked = sum(len(r["input"]) for r in fake_llm.embedding_requests)
    fake_llm.embedding_requests.clear()
    doc, _ = _eval(ws, capsys)
    again = sum(len(r["input"]) for r in fake_llm.embedding_requests)
    assert asked and again < asked  # only the search index of the past (in memory) embeds again
    assert len(doc["repetitions"]) == 2


def test_a_failing_model_leaves_the_run_lexical(ws: History, capsys, fake_llm) -> None:
    fake_llm.embedding_error = 500
    doc, _ = _eval(ws, capsys)
    assert [r["text"] for r in doc["repetitions"]] == ["Always write the tests with pytest."]
    assert len(doc["notes"]) == 1 and doc["notes"][0].startswith("lexical only: embedding model")
