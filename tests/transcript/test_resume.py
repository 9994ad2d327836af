"""Resuming an appended transcript equals reading it whole: entries, indices, merging and stats."""

from __future__ import annotations

import dataclasses
import json
import random
from pathlib import Path

import pytest

from memcli.sessions import Position, SessionInfo, read_entries, sessions_in

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "transcripts"
JSONL = sorted(p for p in FIX.rglob("*.jsonl") if {"claude-code", "codex", "pi"} & set(p.parts))
STAT_FIELDS = ("lines", "entries", "skipped", "ignored", "tokens", "first_time", "last_time")


def _read(info: SessionInfo, resume: Position | None = None):
    stream = read_entries(info, resume=resume)
    entries = list(stream)
    return entries, stream


def _stats(stream) -> tuple:
    s = stream.stats
    return tuple(getattr(s, f) for f in STAT_FIELDS) + (dict(s.reasons),)


def _check_cut(info: SessionInfo, data: bytes, cut: int, tmp: Path) -> Position:
    """Write the first `cut` bytes, read them, append the rest, resume: it must equal a full read."""
    copy = tmp / info.path.name
    copy.write_bytes(data[:cut])
    local = dataclasses.replace(info, path=copy)
    early, first = _read(local)
    pos = first.position
    copy.write_bytes(data)
    full, whole = _read(local)
    assert pos is not None  # JSONL formats always offer one (offset 0 before any final line)
    assert 0 <= pos.offset <= cut and data[:pos.offset].count(b"\n") == pos.line
    # what came before the position is final: the appended bytes change none of those entries
    assert [e for e in early if e.index < pos.line] == [e for e in full if e.index < pos.line]
    assert all(e.span[1] < pos.line for e in full if e.index < pos.line)  # no response across it
    saved = Position.from_json(json.loads(json.dumps(pos.to_json())))  # survives a JSON state file
    later, resumed = _read(local, saved)
    assert resumed.resumed
    assert later == [e for e in full if e.index >= pos.line]
    assert _stats(resumed) == _stats(whole)
    assert resumed.position == whole.position
    return pos


def _cuts(data: bytes, rng: random.Random, count: int) -> list[int]:
    ends = [i + 1 for i, b in enumerate(data) if b == 0x0A]
    picks = rng.sample(ends, min(count, len(ends)))  # at line ends
    picks += [rng.randrange(1, len(data)) for _ in range(count)]  # anywhere: a torn last line
    return sorted(set(picks + [len(data)]))


@pytest.mark.parametrize("path", JSONL, ids=lambda p: p.name[:40])
def test_resume_equals_full_read_on_real_transcripts(path: Path, tmp_path: Path) -> None:
    (info,) = sessions_in(path)
    data = path.read_bytes()
    rng = random.Random(path.name)
    resumed = 0
    for cut in _cuts(data, rng, 12):
        resumed += _check_cut(info, data, cut, tmp_path).line > 0
    # positions past line 0 are offered for most prefixes, not only for the whole file
    assert resumed >= min(6, data.count(b"\n") // 2)


def test_cut_inside_a_multi_line_claude_response(tmp_path: Path) -> None:
    found = 0
    for path in (p for p in JSONL if "claude-code" in p.parts):
        (info,) = sessions_in(path)
        data = path.read_bytes()
        ends = [i + 1 for i, b in enumerate(data) if b == 0x0A]
        full, _ = _read(info)
        for entry in [e for e in full if e.end is not None and e.role == "assistant"][:3]:
            found += 1
            inside = ends[entry.index]  # after the response's first line; more of it follows
            pos = _check_cut(info, data, inside, tmp_path)
            assert pos.line <= entry.index  # resumes at or before the response's first line
            torn = ends[entry.index] + (ends[entry.index + 1] - ends[entry.index]) // 2
            assert _check_cut(info, data, torn, tmp_path).line <= entry.index
    assert found >= 3


def _plain(rng: random.Random, n: int) -> bytes:
    lines = []
    for i in range(n):
        role = rng.choice(["user", "assistant", "tool", "system", "bogus"])
        row = {"role": role, "content": f"行 {i} " + "x" * rng.randrange(0, 300), "tokens": i}
        if rng.random() < 0.05:
            lines.append(b"{not json")
        else:
            lines.append(json.dumps(row, ensure_ascii=False).encode())
    return b"\n".join(lines) + b"\n"


def test_resume_equals_full_read_on_generated_jsonl(tmp_path: Path) -> None:
    rng = random.Random(7)
    data = _plain(rng, 400)
    src = tmp_path / "src" / "gen.jsonl"
    src.parent.mkdir()
    src.write_bytes(data)
    (info,) = sessions_in(src)
    assert info.agent == "memcli-jsonl"
    lines = [_check_cut(info, data, cut, tmp_path).line for cut in _cuts(data, rng, 40)]
    # stateless format: the position is right after the last complete line
    assert lines[-1] == data.count(b"\n") and sum(line > 0 for line in lines) >= 70


def _position_of(info: SessionInfo) -> Position:
    _, stream = _read(info)
    assert stream.position is not None
    return stream.position


@pytest.mark.parametrize("change", ["shrank", "rewritten", "garbage"])
def test_a_rewritten_or_shrunk_file_is_read_in_full(tmp_path: Path, change: str) -> None:
    path = next(p for p in JSONL if p.name.startswith("5c0375b4"))
    copy = tmp_path / path.name
    data = path.read_bytes()
    copy.write_bytes(data)
    (info,) = sessions_in(copy)
    pos = _position_of(info)
    if change == "shrank":
        copy.write_bytes(data[: data.rindex(b"\n", 0, len(data) // 2) + 1])
    elif change == "rewritten":  # same length or longer, but the bytes before the offset differ
        at = pos.offset - 20
        copy.write_bytes(data[:at] + bytes([data[at] ^ 0x01]) + data[at + 1:] + b"\n")
    else:
        pos = Position.from_json({**pos.to_json(), "check": "0" * 16})
    full, whole = _read(info)
    later, resumed = _read(info, pos)
    assert not resumed.resumed
    assert later == full and _stats(resumed) == _stats(whole)


def test_bad_saved_positions_are_refused() -> None:
    assert Position.from_json(None) is None
    assert Position.from_json({"offset": -1, "line": 0}) is None
    assert Position.from_json({"offset": 3, "line": 1, "nonsense": 1}) is None
    assert Position.from_json({"offset": "3", "line": 1}) is None


def test_formats_read_whole_ignore_a_position() -> None:
    gemini = next((FIX / "gemini-cli").rglob("session-*.json"))
    (info,) = sessions_in(gemini)
    stream = read_entries(info, resume=Position(10, 1, "x", 1))
    assert list(stream) and stream.position is None and not stream.resumed
