"""Rules that apply only when a memory tool (consolidation worker, agent integration) proposes a
write: humans may edit workflows and create files freely, models may not."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from memcli.lint.finding import Finding, Severity
from memcli.lint.rules.base import Change, Context, Rule, Scope
from memcli.workspace import KIND_DIRS, Kind, locate


class WorkflowReadonly(Rule):
    """Tool path only: a memory tool never writes, edits or deletes under `memory/workflow/`.

    Why: workflows are procedures humans wrote and vouch for; a model must not rewrite them.
    Human edits (commit and CI paths) are not restricted.

    Passing (tool path): an edit of `memory/decisions/x.md`.
    Failing (tool path): any write, edit or delete of `memory/workflow/deploy.md`.
    """

    code, alias, severity, scope = "workflow-readonly", "E12", Severity.ERROR, Scope.TOOL

    def check_change(self, change: Change, ctx: Context) -> Iterator[Finding]:
        if change.path.startswith(KIND_DIRS[Kind.WORKFLOW] + "/"):
            yield self.finding(
                change.path, None, "memory/workflow/ is written by humans only; leave workflows unchanged"
            )


class SlugExists(Rule):
    """Tool path only: a "create" of a slug that already exists is refused.

    Why: a model that creates instead of editing would overwrite a record it never read; the
    refusal tells it to read and edit the existing one.

    Passing (tool path): create `knowledge/new-topic.md`.
    Failing (tool path): create `knowledge/sqlite-tuning.md` when it exists.
    """

    code, alias, severity, scope = "slug-exists", "E13", Severity.ERROR, Scope.TOOL

    def check_change(self, change: Change, ctx: Context) -> Iterator[Finding]:
        if change.op == "create" and ctx.before is not None and ctx.before.exists(change.path):
            yield self.finding(
                change.path, None, f"{change.path} already exists; read it and edit it instead of creating it"
            )


def _source_key(item: Any) -> tuple[str, int, int] | None:
    if isinstance(item, dict):
        rng = item.get("range")
        if isinstance(rng, (list, tuple)) and len(rng) == 2:
            return (str(item.get("session_id")), *rng)
    return None


class SourceNotProvided(Rule):
    """Tool path only (consolidation): every Source a write adds is either already on the record or
    one of the Sources handed to this run: its staging items' Sources, and every Source on any
    record when the run started (so merge and split carry provenance to the new record).

    Why: Sources are machine facts that point into real transcripts; a model must copy them,
    never invent them.

    Every field typed as a Source counts: `sources`, knowledge's `last_sources` and the
    summary's `last_rewritten_from_range` (one Source or a list).

    Passing (tool path): a decision citing a staging item's Source.
    Failing (tool path): a decision citing `{session_id: made-up, range: [0, 3]}`, or a summary
    whose `last_rewritten_from_range` cites it.
    """

    code, alias, severity, scope = "source-not-provided", "E15", Severity.ERROR, Scope.TOOL

    def check_change(self, change: Change, ctx: Context) -> Iterator[Finding]:
        from memcli.records.models import cited_sources  # here: the models load when a change is checked

        if change.allowed_sources is None or change.content is None:
            return
        loc = locate(change.path)
        if loc.kind is None:
            return
        new = ctx.snapshot.record(change.path)
        if new.meta is None:
            return
        old_keys: set[tuple[str, int, int]] = set()
        if ctx.before is not None and ctx.before.exists(change.path):
            old = ctx.before.record(change.path)
            if old.meta is not None:
                old_keys = {k for _, item in cited_sources(loc.kind, old.meta) if (k := _source_key(item))}
        # every Source-typed field (sources, last_sources, the summary's last_rewritten_from_range)
        for field, item in cited_sources(loc.kind, new.meta):
            key = _source_key(item)
            if key is None or key in old_keys or key in change.allowed_sources:
                continue
            session_id, start, end = key
            yield self.finding(
                change.path,
                new.line_of(field),
                f"Source {session_id}:{start}-{end} was not given to this run; copy Sources exactly "
                "from the staging items (never write your own)",
                field,
            )
