"""What a rule is: a stable code, a short alias, a severity, a scope, and a `check` generator."""

from __future__ import annotations

import enum
from collections.abc import Iterator
from typing import TYPE_CHECKING, ClassVar, Literal

from memcli.config import LintConfig
from memcli.lint.finding import Finding, Severity
from memcli.lint.snapshot import Snapshot
from memcli.values import frozen

if TYPE_CHECKING:
    from memcli.records.parse import ParsedRecord


class Scope(enum.StrEnum):
    FILE = "file"  # one record at a time
    WORKSPACE = "workspace"  # needs every record (references, cycles, similar slugs)
    TOOL = "tool"  # only when a memory tool proposes a change


Op = Literal["create", "write", "edit", "delete"]


@frozen
class Change:
    """A write proposed on the tool path: `content` None means delete."""

    path: str
    content: bytes | None
    op: Op
    # Sources this run was handed (session_id, start, end); None: the rule is not applied.
    allowed_sources: frozenset[tuple[str, int, int]] | None = None
    # The file did not exist when this run began (a record it created): still new to the rules
    # about new records (E16), whatever later calls of the same run do to it.
    created_in_run: bool = False
    # Every Source of the record is the user's own words (the run's provenance): the trust gate
    # (agent-directive) lets text aimed at agents through.
    vouched: bool = False


@frozen
class Context:
    snapshot: Snapshot
    targets: frozenset[str] | None  # None: the whole workspace
    change: Change | None = None
    before: Snapshot | None = None  # the workspace without the change (tool path)

    @property
    def config(self) -> LintConfig:
        return self.snapshot.config

    def touches(self, paths: set[str] | list[str]) -> bool:
        return self.targets is None or any(p in self.targets for p in paths)


class Rule:
    code: ClassVar[str]
    alias: ClassVar[str]
    severity: ClassVar[Severity]
    scope: ClassVar[Scope] = Scope.FILE

    def finding(self, path: str, line: int | None, message: str, field: str | None = None) -> Finding:
        return Finding(path, line, self.code, self.severity, message, self.alias, field)

    def check_record(self, rec: ParsedRecord, ctx: Context) -> Iterator[Finding]:  # Scope.FILE
        return iter(())

    def check_workspace(self, ctx: Context) -> Iterator[Finding]:  # Scope.WORKSPACE
        return iter(())

    def check_change(self, change: Change, ctx: Context) -> Iterator[Finding]:  # Scope.TOOL
        return iter(())
