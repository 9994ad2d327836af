"""Run the registered rules over a snapshot: the whole workspace, some paths, or one proposed change."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from memcli.lint.finding import Finding
from memcli.lint.parallel import check_in_parallel, procs_for
from memcli.lint.record import record_findings
from memcli.lint.registry import TOOL_RULES, UNKNOWN_LOCATION, WORKSPACE_RULES
from memcli.lint.rules.base import Change, Context
from memcli.lint.snapshot import Snapshot
from memcli.workspace import Workspace, locate

if TYPE_CHECKING:
    from memcli.records.parse import ParsedRecord


def _file_findings(snapshot: Snapshot, paths: Iterable[str], ctx: Context) -> list[Finding]:
    out: list[Finding] = []
    records: list[str] = []
    for path in paths:
        if not snapshot.exists(path):
            continue  # deleted: the workspace rules see what that breaks
        loc = locate(path)
        if loc.ignored:
            continue
        if loc.kind is None:
            out.extend(UNKNOWN_LOCATION.check_path(path))
            continue
        records.append(path)
    procs = procs_for(snapshot, len(records))
    if procs > 1:
        for found in check_in_parallel(snapshot, records, ctx, procs).values():
            out.extend(found)
    else:
        for path in records:
            out.extend(record_findings(snapshot, path, ctx))
    return out


def _workspace_findings(ctx: Context) -> list[Finding]:
    return [f for rule in WORKSPACE_RULES for f in rule.check_workspace(ctx)]


def _sorted(findings: Iterable[Finding]) -> list[Finding]:
    return sorted(set(findings), key=lambda f: (f.path, f.line or 0, f.code, f.message))


def lint(
    workspace: Workspace, paths: Iterable[str] | None = None, *, snapshot: Snapshot | None = None
) -> list[Finding]:
    """Lint the whole workspace, or the given workspace-relative paths.

    Reference rules (`dangling-reference`, `replaced-by-cycle`) always report across the whole
    workspace, so a deletion that breaks another record is caught even when only the deleted path
    was passed; warnings about groups and chains are limited to those touching `paths`.
    """
    snap = snapshot or Snapshot(workspace)
    targets = frozenset(paths) if paths is not None else None
    ctx = Context(snap, targets)
    files = snap.files if targets is None else sorted(targets)
    findings = _file_findings(snap, files, ctx)
    findings.extend(_workspace_findings(ctx))  # warnings there already keep to `targets`
    return _sorted(people_wrote_it(snap.root, findings))


def people_wrote_it(root, findings: list[Finding]) -> list[Finding]:
    """`findings` less the trust gate's on lines a person wrote (memcli.git.authorship): git is
    asked only about the lines it flagged, so a clean workspace runs no git."""
    flagged: dict[str, set[int]] = {}
    for f in findings:
        if f.code == "agent-directive" and f.line:
            flagged.setdefault(f.path, set()).add(f.line)
    if not flagged:
        return findings
    from memcli.git.authorship import memcli_written  # here: only a flagged record asks git

    memcli = {path: memcli_written(root, path, lines) for path, lines in flagged.items()}
    return [f for f in findings if f.code != "agent-directive" or (f.line or 0) in memcli.get(f.path, {0})]


def lint_change(workspace: Workspace, change: Change, *, before: Snapshot | None = None,
                old: ParsedRecord | None = None, new: ParsedRecord | None = None) -> list[Finding]:
    """Lint one proposed tool write as if it were written (the tool path). `old` and `new`: the
    changed file as it is and as proposed, when the caller parsed them already (not parsed again).

    Reported: findings on the changed file, the tool-only rules, and any workspace finding the
    change introduces (e.g. deleting a decision that another one replaces into) — but not problems
    that already existed elsewhere, which the model did not cause and cannot be asked to fix here.
    """
    before = before or Snapshot(workspace)
    if old is not None:
        before.parsed(change.path, old)
    after = Snapshot(workspace, {change.path: change.content}, files=before.files)
    after.share_cache(before, except_paths={change.path})
    if new is not None:
        after.parsed(change.path, new)
    targets = frozenset({change.path})
    ctx = Context(after, targets, change, before)
    findings = _file_findings(after, [change.path], ctx)
    # Workspace rules before and after, scoped to the change: whatever appears only after it (a
    # dangling reference elsewhere, a cycle, a new crowd of similar slugs) is the change's doing.
    there = set(_workspace_findings(Context(before, targets)))
    for f in _workspace_findings(ctx):
        if f.path == change.path or f not in there:
            findings.append(f)
    for rule in TOOL_RULES:
        findings.extend(rule.check_change(change, ctx))
    return _sorted(findings)
