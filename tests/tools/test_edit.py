"""memory_edit: exact replacement; zero or several matches say how many and where; then linted."""

from __future__ import annotations

import pytest
from tools.helpers import tree

from memcli.tools import ToolSession

WAL = "memory/decisions/use-sqlite-wal.md"  # "range" occurs on lines 7 and 9


@pytest.mark.parametrize(
    ("old", "new", "replace_all", "error", "says"),
    [
        ("Postgres adds", "Postgres would add", False, None, None),
        ("MySQL", "MariaDB", False, "no-match", "not found"),
        (
            "range",
            "span",
            False,
            "multiple-matches",
            "2 times in memory/decisions/use-sqlite-wal.md (at lines 7, 9)",
        ),
        ("", "x", False, "arguments", "empty"),
        ("WAL", "WAL", False, "arguments", "same"),
    ],
    ids=["one-match", "zero-matches", "two-matches", "empty-old", "no-change"],
)
def test_edit_matches(
    session: ToolSession, old: str, new: str, replace_all: bool, error: str | None, says: str | None
) -> None:
    root = session.workspace.root
    before_tree = tree(root)
    before = (root / WAL).read_text(encoding="utf-8")
    out = session.edit(WAL, old, new, "clarify", replace_all=replace_all)
    if error is None:
        assert out.ok, out
        assert (root / WAL).read_text(encoding="utf-8") == before.replace(old, new, 1)
        assert [e.op for e in session.journal] == ["edit"]
    else:
        assert out.error == error, out
        assert says in out.message, out.message
        assert tree(root) == before_tree
        assert session.journal == ()


def test_zero_matches_hints_where_the_first_line_is(session: ToolSession) -> None:
    out = session.edit(WAL, "Use SQLite in WAL mode as the only datastore\nfor now.", "x", "r")
    assert out.error == "no-match"
    assert "line(s) 11" in out.message


def test_replace_all_replaces_every_occurrence_then_lints(session: ToolSession) -> None:
    root = session.workspace.root
    # "range" → "span" in every Source breaks the frontmatter: linted, refused, file untouched
    before = tree(root)
    out = session.edit(WAL, "range", "span", "r", replace_all=True)
    assert out.error == "refused"
    assert {v.code for v in out.violations} == {"missing-field"}  # sources[0].range
    assert tree(root) == before
    # a harmless replace_all goes through
    out = session.edit(WAL, "WAL", "write-ahead-log", "r", replace_all=True)
    assert out.ok, out
    assert "WAL" not in (root / WAL).read_text(encoding="utf-8")


def test_edit_of_a_missing_file(session: ToolSession) -> None:
    out = session.edit("memory/decisions/nope.md", "a", "b", "r")
    assert out.error == "not-found" and "mode=create" in out.message


def test_edit_japanese_text_and_crlf_preserved(session: ToolSession) -> None:
    root = session.workspace.root
    path = "memory/requests/keep-e2e-opt-in.md"
    data = (root / path).read_bytes().replace(b"\n", b"\r\n")
    (root / path).write_bytes(data)
    out = session.edit(path, "Keep the end-to-end suite", "E2E テストは既定の実行から外す", "日本語化")
    assert out.ok, out
    assert (root / path).read_bytes() == data.replace(
        b"Keep the end-to-end suite", "E2E テストは既定の実行から外す".encode()
    )


def test_edit_to_a_dangling_replaced_by_is_refused(session: ToolSession) -> None:
    out = session.edit(
        WAL, "status: resolved", "status: replaced\nreplaced_by: no-such-decision", "superseded"
    )
    assert out.error == "refused"
    assert [v.code for v in out.violations] == ["dangling-reference"]
    assert out.violations[0].field == "replaced_by"


def test_decision_replacement_is_an_edit(session: ToolSession) -> None:
    out = session.edit(WAL, "status: resolved", "status: replaced\nreplaced_by: api-versioning", "superseded")
    assert out.ok, out
    assert "replaced_by: api-versioning" in (session.workspace.root / WAL).read_text(encoding="utf-8")
