"""Code anchors that no longer hold: the code a record names has moved or gone."""

from __future__ import annotations

from collections.abc import Iterator

from memcli.anchors import AnchorChecker
from memcli.lint.finding import Finding, Severity
from memcli.lint.rules.base import Context, Rule, Scope
from memcli.records.anchors import anchors_of
from memcli.workspace import Kind


class AnchorDrift(Rule):
    """Warning: each `anchors` entry of a record names a file that exists in the repository, and its
    `symbol`, when given, still appears in that file.

    Why: a record about code is only as true as the code is still there. A renamed file is reported
    with its new name (from git's rename detection), a missing symbol with the files that hold it now,
    so the fix is one edit. Checked against the working tree on every lint (never cached: the code
    changes while the record does not); not on the tool path, where consolidation works on a copy of
    the memory without the code.

    Passing: `anchors: [{path: src/jobs.py, symbol: run_pending}]` with `def run_pending` in src/jobs.py.
    Failing: the same after `git mv src/jobs.py src/worker.py` ("renamed to src/worker.py").
    """

    code, alias, severity, scope = "anchor-drift", "W07", Severity.WARNING, Scope.WORKSPACE

    def check_workspace(self, ctx: Context) -> Iterator[Finding]:
        if ctx.change is not None:
            return
        snap = ctx.snapshot
        named = []
        for kind in (Kind.DECISION, Kind.REQUEST, Kind.KNOWLEDGE, Kind.WORKFLOW):
            # cached facts say which records spell `anchors`: an unchanged workspace is not re-read
            for _, path, _ in snap.facts_with(kind, b"anchors"):
                if ctx.touches([path]):
                    rec = snap.record(path)
                    named.append((rec, anchors_of(rec.meta)))
        issues = AnchorChecker(snap.root).check_many([anchors for _, anchors in named])
        for (rec, _), found in zip(named, issues, strict=True):
            for issue in found:
                yield self.finding(rec.path, rec.line_of("anchors"), issue.message, "anchors")
