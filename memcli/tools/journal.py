"""The ordered record of what a tool session changed, for the consolidation commit message, and of
the calls it refused (a poisoning attempt stopped, a path outside the records), for the run record."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any, Literal

from memcli.tools.phase import Phase
from memcli.values import frozen

JournalOp = Literal["create", "replace", "edit", "delete"]


@frozen
class JournalEntry:
    op: JournalOp
    path: str
    reason: str
    category: str | None  # outdated | superseded | unused | noisy (GC phase), else usually None
    size_before: int | None  # characters; None: the file did not exist
    size_after: int | None  # characters; None: the file was deleted
    phase: Phase = Phase.INTEGRATION

    def line(self) -> str:
        """One commit-message line: `edit memory/decisions/x.md [superseded] 1200→800 chars: why`."""
        before = "-" if self.size_before is None else str(self.size_before)
        after = "-" if self.size_after is None else str(self.size_after)
        tag = f" [{self.category}]" if self.category else ""
        return f"{self.op} {self.path}{tag} {before}→{after} chars: {self.reason}"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@frozen
class Refusal:
    """One refused tool call: a rule the tools enforce (`refused`: lint, trust, policy) or a target
    that is not a record of the workspace (`path`)."""

    tool: str
    code: str  # the violations' codes ("untrusted-instruction", "slug-exists, invalid-field"), or "path"
    path: str | None  # the record it aimed at, as given when it was refused for the path itself
    line: str  # one line: what was wrong (already through the trust filter)
    phase: Phase = Phase.INTEGRATION

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
