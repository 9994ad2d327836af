"""The ledger survives restarts and torn lines, and notices files that shrank or were rewritten."""

from __future__ import annotations

from pathlib import Path

from memcli.extract.ledger import LEDGER, Ledger
from memcli.transcript.model import Entry


def entries(texts: list[str]) -> list[Entry]:
    return [Entry(i, "user", t) for i, t in enumerate(texts)]


def test_spans_persist_and_a_torn_line_is_ignored(tmp_path: Path) -> None:
    es = entries(["a", "b", "c"])
    led = Ledger.open(tmp_path)
    led.record("k", "s", es[0], es[1], 0, 1, "v1", "m1", "id1")
    led.record("k", "s", es[0], es[2], 2, 2, "v1", "m1", "id2")
    with (tmp_path / LEDGER).open("a") as fh:
        fh.write('{"op": "span", "key": "k", "sess')  # a run killed mid-write
    again = Ledger.open(tmp_path)
    assert [(s.start, s.end, s.staging_id) for s in again.spans("k")] == [(0, 1, "id1"), (2, 2, "id2")]
    assert again.check("k", es) is None


def test_check_detects_shrink_and_rewrite(tmp_path: Path) -> None:
    es = entries(["a", "b", "c", "d"])
    led = Ledger.open(tmp_path)
    led.record("k", "s", es[0], es[3], 0, 3, "v", "m", "id")
    assert led.check("k", es[:2]) == "shrank"
    assert led.check("k", entries(["a", "b", "c", "D"])) == "rewritten"
    assert led.check("k", entries(["A", "b", "c", "d"])) == "rewritten"
    assert led.check("k", [*es, Entry(4, "user", "e")]) is None  # appended: fine
    assert led.check("other", es) is None


def test_reset_and_forget_replay_after_reopen(tmp_path: Path) -> None:
    es = entries(["a", "b"])
    led = Ledger.open(tmp_path)
    led.record("k", "s", es[0], es[0], 0, 0, "v", "m", "x")
    led.record("k", "s", es[0], es[1], 1, 1, "v", "m", "y")
    led.record("j", "t", es[0], es[1], 0, 1, "v", "m", "z")
    led.forget(led.spans("k")[0])
    led.reset("j", "rewritten")
    again = Ledger.open(tmp_path)
    assert [s.staging_id for s in again.spans("k")] == ["y"] and again.spans("j") == []
    assert [s.staging_id for s in again.all_spans()] == ["y"]
