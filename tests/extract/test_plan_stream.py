"""Planning streams a session: the same chunks as packing the whole entry list at once, with memory
bounded by what is left to extract rather than by the transcript's size."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import random
import tracemalloc
from pathlib import Path

import pytest
from extract.helpers import FIXTURES

from memcli.config import ExtractConfig
from memcli.extract import prompt
from memcli.extract.ledger import Ledger, session_key
from memcli.extract.plan import plan
from memcli.extract.prepare import chunk, prepare
from memcli.extract.remember import calls_in
from memcli.sessions import Entry, read_entries, sessions_in

NOW = dt.datetime(2030, 1, 1, tzinfo=dt.UTC)
CFG = ExtractConfig(chunk_tokens=700, idle_minutes=0)
FILES = sorted(p for p in FIXTURES.rglob("*") if p.suffix in (".jsonl", ".json") or p.name.endswith(".md")
               and "chat-history" in p.name)


def _oracle(entries: list[Entry], spans: list[tuple[int, int]], cfg: ExtractConfig) -> list[tuple]:
    """What planning did before it streamed: every entry in a list, uncovered runs, chunk() each."""
    runs: list[list[Entry]] = []
    current: list[Entry] = []
    for entry in entries:
        if any(a <= entry.index <= b for a, b in spans):
            if current:
                runs.append(current)
            current = []
        else:
            current.append(entry)
    if current:
        runs.append(current)
    hidden = frozenset(i for e in entries for i in calls_in(e)[1])  # memcli_remember calls' results
    out = []
    for run in runs:
        prepared = [p for p in (prepare(e, cfg.tool_output_chars, hidden) for e in run) if p is not None]
        by_start = {e.index: e for e in run}
        out += [(piece, entries[0], by_start[piece.entries[-1].start])
                for piece in chunk(prepared, cfg.chunk_tokens)]
    return out


def _same(agent: str, piece) -> tuple:
    """What a chunk sends and records: its messages (the staging id hashes them), range, level."""
    return (prompt.messages(agent, piece), piece.range, piece.level, piece.redactions, len(piece.entries))


def _record(ledger: Ledger, info, entries: list[Entry], a: int, b: int) -> tuple[int, int]:
    start, end = entries[a].index, entries[b].span[1]
    ledger.record(session_key(info), info.session_id, entries[0], entries[b], start, end, "v1", "m", f"s{a}")
    return start, end


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name[:40])
def test_streamed_plan_equals_packing_the_whole_list(path: Path, tmp_path: Path) -> None:
    infos = sessions_in(path)
    rng = random.Random(path.name)
    for info in infos:
        entries = list(read_entries(info))
        ledger = Ledger(tmp_path / f"{rng.random()}.jsonl")
        spans: list[tuple[int, int]] = []
        for _ in range(rng.randrange(0, 4) if len(entries) > 3 else 0):  # some spans already done
            a = rng.randrange(len(entries))
            b = min(len(entries) - 1, a + rng.randrange(0, 6))
            spans.append(_record(ledger, info, entries, a, b))
        got = plan([info], ledger, CFG, NOW)
        assert not got.reset
        expected = _oracle(entries, spans, CFG)
        assert [(w.first_entry, w.last_entry) for w in got.work] == [(f, last) for _, f, last in expected]
        assert [_same(info.agent, w.chunk) for w in got.work] == [
            _same(info.agent, c) for c, _, _ in expected]


def test_a_rewritten_session_is_planned_whole_again(tmp_path: Path) -> None:
    src = next(p for p in FILES if p.name.startswith("5c0375b4"))
    copy = tmp_path / src.name
    copy.write_bytes(src.read_bytes())
    (info,) = sessions_in(copy)
    entries = list(read_entries(info))
    ledger = Ledger(tmp_path / "ledger.jsonl")
    _record(ledger, info, entries, 0, len(entries) // 2)
    assert plan([info], ledger, CFG, NOW, apply_resets=False).work[0].chunk.range[0] > 0
    lines = copy.read_bytes().splitlines(keepends=True)
    row = json.loads(lines[entries[len(entries) // 2].index])
    row["message"]["content"] = "a different prompt"  # the span's last entry now says something else
    lines[entries[len(entries) // 2].index] = (json.dumps(row) + "\n").encode()
    copy.write_bytes(b"".join(lines))
    rewritten = list(read_entries(info))
    got = plan([info], ledger, CFG, NOW)
    assert got.reset == [(info.session_id, "rewritten")]
    assert [(_same(info.agent, w.chunk), w.last_entry) for w in got.work] == [
        (_same(info.agent, c), last) for c, _, last in _oracle(rewritten, [], CFG)]
    assert not ledger.spans(session_key(info))  # the reset was recorded


def _big_transcript(path: Path, mb: float, start: int = 0) -> int:
    """Claude Code lines with large tool outputs (as real sessions have), ~`mb` MB; returns turns."""
    output = ("def handler(request):\n    return render(request, 'index.html', ctx)  # 表示\n" * 200)
    n = start
    with path.open("a", encoding="utf-8") as fh:
        while fh.tell() < mb * 1e6:
            base = {"sessionId": "big", "cwd": "/w", "timestamp": "2026-05-12T10:00:00.000Z"}
            rows = [
                {"type": "user", "uuid": f"u{n}", "message": {"role": "user", "content": f"fix case {n}"}},
                {"type": "assistant", "uuid": f"a{n}", "message": {"id": f"m{n}", "role": "assistant",
                 "content": [{"type": "tool_use", "id": f"t{n}", "name": "Bash",
                              "input": {"command": "ls"}}]}},
                {"type": "user", "uuid": f"r{n}", "message": {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": f"t{n}", "content": f"{n}\n{output}"}]}},
                {"type": "assistant", "uuid": f"b{n}", "message": {"id": f"n{n}", "role": "assistant",
                 "content": [{"type": "text", "text": f"done with case {n}"}], "stop_reason": "end_turn"}},
            ]
            fh.write("".join(json.dumps(base | r, ensure_ascii=False) + "\n" for r in rows))
            n += 1
    return n


def _peak(func) -> tuple[object, int]:
    tracemalloc.start()
    try:
        out = func()
        return out, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_planning_memory_stays_far_below_the_transcript_size(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    turns = _big_transcript(path, 50)
    size = path.stat().st_size
    (info,) = sessions_in(path)
    info = dataclasses.replace(info, last_time=None)
    cfg = ExtractConfig(idle_minutes=0)
    ledger = Ledger(tmp_path / "ledger.jsonl")
    fresh, peak_fresh = _peak(lambda: plan([info], ledger, cfg, NOW))
    # Everything is still to extract: the plan holds the prepared chunks (tool output cut to
    # tool_output_chars), not the entries, so it is a fraction of the file.
    assert fresh.work and peak_fresh < size / 4, (peak_fresh, size)
    for w in fresh.work:  # extracted: the ledger covers the whole file
        ledger.record(w.key, info.session_id, w.first_entry, w.last_entry, *w.chunk.range, "v", "m", "s")
    del fresh
    _big_transcript(path, size * 1.01 / 1e6, start=turns)  # the agent went on: 1% more
    later, peak_later = _peak(lambda: plan([info], ledger, cfg, NOW))
    assert later.work and not later.reset
    assert all(w.chunk.range[0] >= turns * 4 for w in later.work)  # 4 lines a turn: only new ones
    assert peak_later < size / 20, (peak_later, size)  # only the new span (and the check) is held
