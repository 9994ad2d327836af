"""A memory write parses the record it changes once as it is and once as proposed: the tool's
checks and the lint of the change read those two parses (it parsed the new bytes three times and
the old ones twice)."""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from tools.helpers import record

from memcli.records.parse import parse_record
from memcli.tools import ToolSession

REL = "memory/decisions/use-sqlite-wal.md"


@contextmanager
def parses() -> Iterator[Counter[tuple[str, bytes]]]:
    """(path, bytes) → how many times parse_record ran on them inside the block."""
    seen: Counter[tuple[str, bytes]] = Counter()
    code = parse_record.__code__

    def profile(frame: Any, event: str, arg: Any) -> None:
        if event == "call" and frame.f_code is code:
            seen[(frame.f_locals["path"], bytes(frame.f_locals["data"]))] += 1

    previous: Callable[..., Any] | None = sys.getprofile()
    sys.setprofile(profile)
    try:
        yield seen
    finally:
        sys.setprofile(previous)


def test_a_replace_parses_the_old_and_the_new_bytes_once_each(session: ToolSession) -> None:
    full = session.workspace.root / REL
    old = full.read_bytes()
    new = old.replace(b"WAL", b"WAL mode", 1)
    assert new != old
    with parses() as seen:
        out = session.write(REL, new.decode(), "replace", "clarify the mode")
    assert out.ok, out
    assert seen[(REL, new)] == 1 and seen[(REL, old)] == 1, seen


def test_a_create_parses_its_bytes_once(session: ToolSession) -> None:
    rel, text = "memory/decisions/adopt-ruff.md", record("decision", "Adopt ruff for linting.\n")
    with parses() as seen:
        out = session.write(rel, text, "create", "new decision from staging")
    assert out.ok, out
    assert seen[(rel, text.encode())] == 1, seen


def test_a_refused_write_still_lints_the_proposed_bytes(session: ToolSession) -> None:
    out = session.write(REL, "---\nstatus: resolved\n---\nno fields\n", "replace", "break it")
    assert not out.ok and "missing-field" in {v.code for v in out.violations}, out  # lint read the new bytes
