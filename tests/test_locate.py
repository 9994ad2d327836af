"""Where a workspace-relative path sits: a record file as a listing gives it is told at once, and
that shortcut says exactly what the full classification says, for every spelling of a path."""

from __future__ import annotations

import itertools

from memcli.workspace import Kind, Location, classify, locate

PIECES = ["memory", "knowledge", "decisions", "requests", "workflow", "_staging", "summary.md", "x.md",
          ".x.md", ".md", "md", "", ".", "..", "a.md.md", "x", ".gitkeep", "memory/decisions", "ｘ.md",
          "x.MD", " .md", ".x.md.abcdefgh.tmp"]


def test_every_path_is_located_as_the_full_classification_locates_it() -> None:
    checked = 0
    for k in range(1, 5):
        for combo in itertools.product(PIECES, repeat=k):
            rel = "/".join(combo)
            assert locate.__wrapped__(rel) == classify(rel), rel
            checked += 1
    assert checked > 200_000


def test_the_record_locations() -> None:
    assert locate("knowledge/uv-cache.md") == Location(Kind.KNOWLEDGE, "uv-cache")
    assert locate("memory/decisions/a.md.md") == Location(Kind.DECISION, "a.md")
    assert locate("memory/summary.md") == Location(Kind.SUMMARY, "summary")
    assert locate("knowledge/.swap.md") == Location(None, ignored=True)
    left = locate("knowledge/.x.md.abcdefgh.tmp")  # an interrupted write's temp file: a finding
    assert not left.ignored and left.kind is None and "interrupted write of x.md" in (left.problem or "")
    assert locate("memory/_staging/.x.md.abcdefgh.tmp").ignored
    assert locate("./knowledge//x.md") == Location(Kind.KNOWLEDGE, "x")
    assert locate("memory/_staging/x.md").ignored and locate("memory/x.md").problem
