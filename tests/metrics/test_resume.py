"""Counting an appended transcript from the saved reader position gives exactly the counts of a
full recount, and a file changed before that position is recounted, never added to."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from memcli.metrics.scan import update_state
from memcli.metrics.state import State
from memcli.sessions import read_entries, sessions_in

WAL = "knowledge/wal-mode.md"
FIELDS = ("entries", "next_index", "last_time", "logged_total", "logged", "estimated", "invokes")


def _fill(t, codex: bool, n: int, rng: random.Random) -> None:
    for i in range(n):
        ts = f"2026-05-{12 + i // 40:02d}T09:{i % 60:02d}:00.000Z"
        pick = rng.random()
        if codex:
            if pick < 0.3:
                t.user(f"#wal-mode を見て {i}", ts)
            elif pick < 0.8:
                t.exec(f"cat {WAL}" if pick < 0.5 else "ls", ts)
            else:
                t.tokens(1000 * (i + 1), ts)
        elif pick < 0.3:
            t.user(f"please read #wal-mode {i}", ts)
        elif pick < 0.7:
            t.tool("Read", {"file_path": WAL if pick < 0.5 else "README.md"}, ts, tokens=100 + i)
        else:
            t.say(f"answer {i} " + "長い" * rng.randrange(0, 50), ts, tokens=50 + i)


class Recorder:
    """read_entries, remembering the position each read was asked to resume from."""

    def __init__(self) -> None:
        self.calls: list[tuple[object, bool]] = []

    def __call__(self, info, resume=None):
        stream = read_entries(info, resume=resume)
        self.calls.append((resume, stream.resumed))
        return stream


def _state(info, resume: bool = True) -> tuple[State, Recorder]:
    state, rec = State(), Recorder()
    update_state(state, [info], rec, resume=resume)
    return state, rec


def _facts(state: State, split: bool = True) -> dict:
    """What was counted. `split=False`: logged usage as a total only, as its split over days
    follows the runs (each run spreads what it adds over the days of the entries it read)."""
    (session,) = state.sessions.values()
    out = {f: getattr(session, f) for f in FIELDS}
    if not split:
        out["logged"] = sum(session.logged.values())
    return out


@pytest.mark.parametrize("codex", [False, True], ids=["claude", "codex"])
def test_resumed_counts_equal_a_full_recount_at_random_cuts(agents, codex: bool) -> None:
    rng = random.Random(3 + codex)
    t = agents.codex() if codex else agents.claude()
    _fill(t, codex, 160, rng)
    data = t.path.read_bytes()
    (info,) = sessions_in(t.path)
    whole, _ = _state(info)
    ends = [i + 1 for i, b in enumerate(data) if b == 0x0A]
    cuts = rng.sample(ends[1:-1], 6) + [rng.randrange(ends[0], len(data)) for _ in range(6)]
    for cut in cuts:
        t.path.write_bytes(data[:cut])
        state, rec = _state(info)  # the first run sees a prefix (maybe with a torn last line)
        t.path.write_bytes(data)
        update_state(state, [info], rec)  # the agent appended the rest: resumed
        position, resumed = rec.calls[-1]
        assert position is not None and position.line > 0 and resumed
        assert _facts(state, split=False) == _facts(whole, split=False), cut
        t.path.write_bytes(data[:cut])
        old_way, _ = _state(info, resume=False)
        t.path.write_bytes(data)
        update_state(old_way, [info], Recorder(), resume=False)  # re-parse from line 0: same result
        assert _facts(old_way) == _facts(state)


def test_a_change_before_the_saved_position_is_recounted(agents) -> None:
    t = agents.claude()
    _fill(t, False, 120, random.Random(5))
    (info,) = sessions_in(t.path)
    state, rec = _state(info)
    (session,) = state.sessions.values()
    data = t.path.read_bytes()
    at = session.resume["offset"] - 40  # in the last line before the position, past the head hash
    assert at > 8192
    t.path.write_bytes(data[:at] + b"X" + data[at + 1:] + data[-400:])  # edited and grown
    summary = update_state(state, [info], rec)
    assert summary.recounted == 1 and rec.calls[-1][0] is not None and rec.calls[-1][1] is False
    fresh, _ = _state(info)
    assert _facts(state) == _facts(fresh)


def test_state_without_a_position_reads_whole_and_then_saves_one(agents, tmp_path: Path) -> None:
    t = agents.codex()
    _fill(t, True, 40, random.Random(9))
    (info,) = sessions_in(t.path)
    state, _ = _state(info)
    (session,) = state.sessions.values()
    assert session.resume is not None and session.resume["offset"] == t.path.stat().st_size
    session.resume = None  # a state file written before positions existed
    t.user("#wal-mode again", "2026-05-20T09:00:00.000Z")
    rec = Recorder()
    summary = update_state(state, [info], rec)
    assert rec.calls == [(None, False)] and summary.recounted == 0 and summary.invokes == 1
    assert state.sessions[next(iter(state.sessions))].resume is not None
