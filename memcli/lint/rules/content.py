"""Tool-path rules about what a model writes into a record (spec: the Phase 2 prompt rules the
code can check): new knowledge starts out of the resident context, `#slug` references name real
records, and a decision is not a copy of the tracker's ids."""

from __future__ import annotations

import re
from collections.abc import Iterator

from memcli.lint.finding import Finding, Severity
from memcli.lint.rules.base import Change, Context, Rule, Scope
from memcli.workspace import Kind, locate

# `#slug` where a word starts: not a heading (`# Title`), not a URL fragment (`page#part`), not an
# issue number (`#123`: digits only). Code spans and fenced blocks are left out before matching.
_SLUG_REF = re.compile(r"(?<![\w#&/])#([a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?)(?![\w-])")
_FENCE = re.compile(r"^(```|~~~).*?^\1", re.S | re.M)
_CODE_SPAN = re.compile(r"`[^`\n]*`")
# Tracker and version-control ids: #123, GH-123, PR 12, !45 (GitLab), ABC-123 (Jira), commit shas.
_TRACKER_ID = re.compile(
    r"(?<![\w/])(?:#\d+|(?:GH|PR|MR)[- ]?#?\d+|![0-9]+|[A-Z][A-Z0-9]{1,9}-\d+"
    r"|(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])[0-9a-f]{7,40})(?![\w-])"
)
LEDGER_MIN_IDS = 4  # fewer ids than this is a decision citing its history, not a ledger
LEDGER_SHARE = 0.5  # at least this share of the body's non-empty lines carry an id


def prose(body: str) -> str:
    """The body without fenced blocks and code spans (where `#x` and ids are code, not references)."""
    return _CODE_SPAN.sub("", _FENCE.sub("", body))


def slug_refs(body: str) -> list[str]:
    return [m.group(1) for m in _SLUG_REF.finditer(prose(body)) if not m.group(1).isdigit()]


class NewKnowledgeInvoked(Rule):
    """Tool path only: a knowledge file a memory tool creates starts with `model_invocation: false`,
    and keeps it for the rest of the run that created it.

    Why: a model-invoked description is put into every agent session; whether a record earns that
    standing cost is a judgement made once it has proven useful (by a human, or a later run editing
    the existing record), not when it is first written — nor by an edit right after the create.

    Passing (tool path): create `knowledge/wal-checkpoints.md` with `model_invocation: false`.
    Failing (tool path): the same with `model_invocation: true`, or an edit to `true` in that run.
    """

    code, alias, severity, scope = "new-knowledge-invoked", "E16", Severity.ERROR, Scope.TOOL

    def check_change(self, change: Change, ctx: Context) -> Iterator[Finding]:
        if change.content is None or locate(change.path).kind is not Kind.KNOWLEDGE:
            return
        if ctx.before is not None and ctx.before.exists(change.path) and not change.created_in_run:
            return
        new = ctx.snapshot.record(change.path)
        if isinstance(new.meta, dict) and new.meta.get("model_invocation") is True:
            yield self.finding(
                change.path,
                new.line_of("model_invocation"),
                "new knowledge starts with model_invocation: false and keeps it in the run that created "
                "it (it is shown to every session only once it has proven useful: a later run or a "
                "person may change it)",
                "model_invocation",
            )


class UnknownSlugReference(Rule):
    """Tool path only: every `#slug` reference in the body of a record a memory tool writes names an
    existing record (any kind; code spans and fenced blocks are not read; `#123` is an issue
    number, not a reference).

    Why: a model that invents a `#slug` leaves a link that leads nowhere, and readers (people and
    agents) follow it.

    Passing (tool path): `see #use-sqlite-wal` with `memory/decisions/use-sqlite-wal.md` present.
    Failing (tool path): `see #use-postgres` when no record has that slug.
    """

    code, alias, severity, scope = "unknown-slug-reference", "E17", Severity.ERROR, Scope.TOOL

    def check_change(self, change: Change, ctx: Context) -> Iterator[Finding]:
        if change.content is None or locate(change.path).kind is None:
            return
        new = ctx.snapshot.record(change.path)
        if new.body is None:
            return
        known = ctx.snapshot.all_slugs()
        for slug in dict.fromkeys(slug_refs(new.body)):
            if slug not in known:
                yield self.finding(
                    change.path,
                    None,
                    f"#{slug} names no record; use the slug of an existing record, or drop the '#'",
                )


class DecisionLedger(Rule):
    """Tool path only: a decision written by a memory tool is not a ledger of issue, PR or commit
    ids: at least 4 ids (`#123`, `PR 12`, `ABC-123`, commit hashes of 7-40 hex characters with a
    letter and a digit, so sizes and dates are not hashes) on at least half of the body's non-empty
    lines is refused.

    Why: the tracker and git history are the authoritative record of their own items; memory
    keeps the judgement and its reasons, which a list of ids is not (and the ids go stale).

    Passing (tool path): a decision with its reasons that cites `#412` once.
    Failing (tool path): a decision whose body is `- #12 done`, `- #13 done`, `- PR 40 merged`, `- a1b2c3d`.
    """

    code, alias, severity, scope = "decision-ledger", "E18", Severity.ERROR, Scope.TOOL

    def check_change(self, change: Change, ctx: Context) -> Iterator[Finding]:
        if change.content is None or locate(change.path).kind is not Kind.DECISION:
            return
        new = ctx.snapshot.record(change.path)
        if new.body is None:
            return
        lines = [ln for ln in prose(new.body).splitlines() if ln.strip()]
        ids = [len(_TRACKER_ID.findall(ln)) for ln in lines]
        with_ids = sum(1 for n in ids if n)
        if sum(ids) >= LEDGER_MIN_IDS and lines and with_ids / len(lines) >= LEDGER_SHARE:
            yield self.finding(
                change.path,
                None,
                f"{with_ids} of {len(lines)} lines list issue/PR/commit ids; keep the decision and why it "
                "was made, and leave the item list to the tracker and git history",
            )
