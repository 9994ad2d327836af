"""Extract within the model's context window: chunks sized to fit, an over-window chunk failed and retried."""

from __future__ import annotations

import json
from pathlib import Path

from extract.helpers import make_ws, old, staged, write_jsonl
from support.fake_llm import FakeLLM, Reply

from memcli.extract import prompt
from memcli.extract.ledger import Ledger
from memcli.extract.run import run
from memcli.llm import estimate_prompt

ITEMS = {"decisions": [{"title": "Index in SQLite", "decision": "Keep the search index in SQLite",
                        "rationale": "one file, no server"}],
         "discussions": [], "attempts": [], "requests": []}
EN = "we compare SQLite FTS5 with a trigram index; "
JA = "索引は SQLite に置き、全文検索は trigram で行う。"


def _long_session(folder: Path, n: int = 60) -> Path:
    rows = [{"role": "user" if i % 2 == 0 else "assistant",
             "content": f"message {i}: " + (EN * 20 if i % 3 else JA * 15),
             "timestamp": old()} for i in range(n)]
    return write_jsonl(folder / "long.jsonl", rows)


def _answer(fake: FakeLLM) -> None:
    fake.responder = lambda body: Reply(content=json.dumps(ITEMS))


def test_chunks_are_sized_to_fit_the_window(fake_llm: FakeLLM, tmp_path: Path) -> None:
    _answer(fake_llm)
    big = make_ws(tmp_path / "big", memory={"context_tokens": 200_000})
    assert run(big, paths=[_long_session(tmp_path / "a")]) == 0
    wide = fake_llm.calls
    small = make_ws(tmp_path / "small", memory={"context_tokens": 8192})
    assert run(small, paths=[_long_session(tmp_path / "b")]) == 0
    narrow = fake_llm.calls - wide
    assert narrow > wide >= 1  # the same session, cut finer for the small window
    # the answer is capped at the room left for it: 4096 tokens at most, a quarter of a small window
    assert {body.get("max_tokens") for body in fake_llm.requests[:wide]} == {4096}
    assert {body.get("max_tokens") for body in fake_llm.requests[wide:]} == {2048}
    for body in fake_llm.requests[wide:]:
        fmt = {"response_format": body["response_format"]} if "response_format" in body else {}
        assert estimate_prompt(body["messages"], fmt) < 8192 - 2048 + 1
    # Every entry was extracted under the small window too: the ranges cover the session.
    ranges = sorted(f.source.range for f in staged(small))
    assert ranges[0][0] == 0 and ranges[-1][1] == 59
    assert all(b[0] == a[1] + 1 for a, b in zip(ranges, ranges[1:], strict=False))


def test_chunk_budget_is_clamped_never_raised() -> None:
    assert prompt.chunk_budget(200_000, 12_000) == 12_000
    assert prompt.chunk_budget(8192, 12_000) < 12_000
    assert prompt.chunk_budget(8192, 1_000) == 1_000
    assert prompt.chunk_budget(600, 12_000) == 200  # a window below the instructions: tiny chunks


def test_over_window_chunk_fails_unrecorded_and_a_larger_window_extracts_it(
        fake_llm: FakeLLM, tmp_path: Path, capsys) -> None:
    path = write_jsonl(tmp_path / "s.jsonl", [
        {"role": "user", "content": "決めた: 索引は SQLite に置く", "timestamp": old()},
        {"role": "assistant", "content": "了解、SQLite にします", "timestamp": old()}])
    _answer(fake_llm)  # a server that truncated the prompt would answer like this, or with []
    ws = make_ws(tmp_path / "ws", memory={"context_tokens": 1024})  # below the instructions alone
    assert run(ws, paths=[path]) == 1
    out = capsys.readouterr().out
    assert "failed:   s:0-1" in out and "context window" in out and "left for the next run" in out
    assert fake_llm.calls == 0  # nothing sent, so nothing could come back empty
    assert not ws.staging_dir.exists() or not list(ws.staging_dir.iterdir())
    assert Ledger.open(ws.state_dir).all_spans() == []  # not marked done: retried next time
    text = (ws.root / "memcli.toml").read_text(encoding="utf-8").replace("context_tokens = 1024",
                                                                          "context_tokens = 16384")
    (ws.root / "memcli.toml").write_text(text, encoding="utf-8")
    bigger = type(ws).open(ws.root)
    assert run(bigger, paths=[path]) == 0
    assert fake_llm.calls == 1 and [f.source.range for f in staged(bigger)] == [(0, 1)]
    assert len(Ledger.open(bigger.state_dir).all_spans()) == 1
