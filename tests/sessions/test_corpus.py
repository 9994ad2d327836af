"""Every real transcript in tests/fixtures/transcripts reads without a line skipped, whichever agent
wrote it (each agent's own expectations: tests/agents/<agent>/test_transcript.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.transcripts import FIX

from memcli.sessions import scan, sessions_in


@pytest.mark.parametrize("path", sorted(p for p in FIX.rglob("*") if p.suffix in (".jsonl", ".json", ".md")
                                         and p.name != "README.md"), ids=lambda p: p.name[:24])
def test_every_fixture_reads_without_skipping(path: Path) -> None:
    for info in sessions_in(path):
        full = scan(info)
        if path.name == "logs.json":
            continue
        assert full.skipped == 0 and not full.extra["truncated"]
        assert full.entries > 0 or (info.agent == "aider" and full.extra["lines"] <= 4)  # a bare header
