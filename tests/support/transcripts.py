"""Reading real transcripts in tests: the fixtures (tests/fixtures/transcripts, by agent) and checks
every agent's reader must pass."""

from __future__ import annotations

from pathlib import Path

from memcli.sessions import Entry, read_session

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts"


def read(path: Path):
    info, stream = read_session(path)
    entries = list(stream)
    return info, entries, stream.stats


def prompts(entries: list[Entry]) -> list[tuple[int, str]]:
    return [(e.index, e.text) for e in entries if e.role == "user" and not e.injected]


def assert_paired(entries: list[Entry], unanswered: int = 0) -> None:
    """Each tool call has exactly one result with its id, after it; no result without a call."""
    calls = {c.call_id: e.index for e in entries for c in e.tool_calls}
    results = [(r.call_id, e.index) for e in entries for r in e.tool_results]
    assert len(calls) == sum(len(e.tool_calls) for e in entries), "call ids are unique"
    assert all(call_id in calls and calls[call_id] <= at for call_id, at in results)
    assert len({call_id for call_id, _ in results}) == len(results)
    assert len(calls) - len(results) == unanswered


def assert_indices_are_lines(path: Path, entries: list[Entry]) -> None:
    lines = path.read_bytes().count(b"\n")
    spans = [e.span for e in entries]
    assert all(0 <= a <= b < lines for a, b in spans)
    assert all(prev[1] < nxt[0] for prev, nxt in zip(spans, spans[1:], strict=False)), "in order, no overlap"
