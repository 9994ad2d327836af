"""Rules over where a file sits and what it is called."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from memcli.lint.finding import Finding, Severity
from memcli.lint.rules.base import Context, Rule
from memcli.slug import SLUG_RE, slug_problem
from memcli.workspace import Kind, locate

if TYPE_CHECKING:
    from memcli.records.parse import ParsedRecord


class UnknownLocation(Rule):
    """Files live only where a record kind lives: `memory/summary.md`, `memory/decisions/`,
    `memory/requests/`, `memory/workflow/`, `knowledge/` (`memory/_staging/` and hidden files
    are not records and are skipped, but for the temp file a write of a record left when memcli
    was killed before renaming it into place, `.<slug>.md.<8 characters>.tmp` beside the record).

    Why: a file elsewhere is never read by any tool, so whatever it says is silently lost; a
    left temp file is half a write, which `git add -A` would commit.

    Passing: `memory/decisions/use-sqlite.md`, `memory/decisions/.gitkeep`.
    Failing: `memory/notes.md`, `memory/ideas/x.md`, `knowledge/diagram.png`,
    `memory/decisions/.use-sqlite.md.k3x9_q2m.tmp`.
    """

    code, alias, severity = "unknown-location", "E11", Severity.ERROR

    def check_path(self, path: str) -> Iterator[Finding]:
        loc = locate(path)
        if loc.kind is None and not loc.ignored:
            yield self.finding(path, None, f"no record kind lives here: {loc.problem}")


class InvalidSlug(Rule):
    """The file name without `.md` is the slug: `^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$`, 1-64
    characters, no `--` (Agent Skills compatible).

    Why: the slug is the record's identity and how other records reference it; one grammar keeps
    references, URLs and skill names portable.

    Passing: `use-sqlite.md`.
    Failing: `-a.md`, `a-.md`, `a--b.md`, `A.md`, `ü.md`, a 65-character name.
    """

    code, alias, severity = "invalid-slug", "E04", Severity.ERROR

    def check_record(self, rec: ParsedRecord, ctx: Context) -> Iterator[Finding]:
        if rec.kind is Kind.SUMMARY or rec.slug is None:
            return
        if SLUG_RE.fullmatch(rec.slug) and "--" not in rec.slug:
            return  # valid: the common case, without slug_problem's character-by-character look
        problem = slug_problem(rec.slug)
        if problem:
            yield self.finding(rec.path, None, f"invalid slug {rec.slug!r}: {problem}; rename the file")
