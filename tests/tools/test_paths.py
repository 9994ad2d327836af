"""Confinement: every tool refuses paths outside memory/ and knowledge/, and changes nothing."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from tools.helpers import record, tree

from memcli.tools import ToolSession

ATTACKS = [
    pytest.param("../../etc/passwd", "'..'", id="dotdot-out"),
    pytest.param("memory/../x", "'..'", id="dotdot-inside"),
    pytest.param("memory/../memory/decisions/x.md", "'..'", id="dotdot-roundtrip"),
    pytest.param("/etc/passwd", "absolute", id="absolute"),
    pytest.param("~/.ssh/id_rsa", "absolute", id="home"),
    pytest.param("C:/Windows/x.md", "absolute", id="drive"),
    pytest.param("memory/_staging/x.json", "_staging", id="staging-file"),
    pytest.param("memory/_staging", "_staging", id="staging-dir"),
    pytest.param("./memory/_staging/lock.json", "_staging", id="staging-dot"),
    pytest.param("memory/decisions/x\x00.md", "NUL", id="nul"),
    pytest.param("memory/decisions/" + "a" * 10_240 + ".md", "characters long", id="10kb"),
    pytest.param("memory\\decisions\\x.md", "backslash", id="backslash"),
    pytest.param("src/app.py", "outside memory/ and knowledge/", id="source-tree"),
    pytest.param(".git/config", "outside memory/ and knowledge/", id="git-dir"),
    pytest.param("memcli.toml", "outside memory/ and knowledge/", id="config"),
    pytest.param("", "non-empty", id="empty"),
]


def _calls(path: str) -> list[tuple[str, dict]]:
    return [
        ("memory_read", {"path": path}),
        ("memory_write", {"path": path, "content": record(), "mode": "create", "reason": "r"}),
        ("memory_write", {"path": path, "content": record(), "mode": "replace", "reason": "r"}),
        ("memory_edit", {"path": path, "old_string": "a", "new_string": "b", "reason": "r"}),
        ("memory_delete", {"path": path, "reason": "r"}),
    ]


@pytest.mark.parametrize(("path", "says"), ATTACKS)
def test_path_attacks_are_refused_by_every_tool(session: ToolSession, path: str, says: str) -> None:
    before = tree(session.workspace.root)
    for name, args in _calls(path):
        out = json.loads(session.dispatch(name, args))
        assert out["ok"] is False, (name, out)
        assert out["error"] == "path", (name, out)
        assert says in out["message"], (name, out["message"])
    assert tree(session.workspace.root) == before
    assert session.journal == ()


def test_absolute_path_of_a_real_record_is_refused(session: ToolSession) -> None:
    target = session.workspace.root / "memory/decisions/use-sqlite-wal.md"
    out = session.read(str(target))
    assert out.error == "path" and "absolute" in out.message


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    out = tmp_path / "outside"
    out.mkdir()
    (out / "secret.md").write_text(record(), encoding="utf-8")
    return out


def test_symlinked_folder_pointing_out_is_refused(session: ToolSession, outside: Path) -> None:
    root = session.workspace.root
    os.symlink(outside, root / "knowledge" / "linked")
    os.symlink(outside, root / "memory" / "requests" / "escape.md")
    before = tree(root)
    outside_before = tree(outside)
    for path in ("knowledge/linked/secret.md", "knowledge/linked/new.md", "memory/requests/escape.md"):
        for name, args in _calls(path):
            out = session.call(name, args)
            assert out.error == "path", (path, name, out)
            assert "symlink" in out.message, out.message
    assert tree(root) == before
    assert tree(outside) == outside_before


def test_symlinked_top_folder_pointing_out_is_refused(ws_factory_root: Path, outside: Path) -> None:
    from memcli.workspace import Workspace

    root = ws_factory_root
    (root / "memory").mkdir()
    os.symlink(outside, root / "knowledge")
    session = ToolSession(Workspace.open(root), allowed_sources=None, knowledge_sources=None)
    out = session.write("knowledge/new.md", record("knowledge"), "create", "r")
    assert out.error == "path" and "symlink" in out.message
    assert sorted(p.name for p in outside.iterdir()) == ["secret.md"]


@pytest.fixture
def ws_factory_root(tmp_path: Path) -> Path:
    root = tmp_path / "bare"
    root.mkdir()
    return root


def test_symlinked_file_to_staging_is_refused(session: ToolSession) -> None:
    root = session.workspace.root
    (root / "memory/_staging").mkdir()
    (root / "memory/_staging/a.json").write_text("{}", encoding="utf-8")
    os.symlink(root / "memory/_staging/a.json", root / "memory/requests/peek.md")
    assert session.read("memory/requests/peek.md").error == "path"


def test_link_inside_the_workspace_reads_the_real_file_but_is_never_written(session: ToolSession) -> None:
    root = session.workspace.root
    os.symlink(root / "knowledge/wal-mode.md", root / "knowledge/wal-alias.md")
    out = session.read("knowledge/wal-alias.md")
    assert out.ok and out.data["path"] == "knowledge/wal-mode.md"
    before = tree(root)
    assert session.edit("knowledge/wal-alias.md", "WAL", "Wal", "r", replace_all=True).error == "path"
    assert session.delete("knowledge/wal-alias.md", "r").error == "path"
    assert tree(root) == before


@pytest.mark.parametrize(
    "path",
    [
        "memory/notes.md",
        "memory/misc/x.md",
        "knowledge/x.txt",
        "memory/decisions/.hidden.md",
        "memory/decisions",
    ],
)
def test_writes_outside_record_locations_are_refused(session: ToolSession, path: str) -> None:
    before = tree(session.workspace.root)
    out = session.write(path, record(), "create", "r")
    assert out.error == "path", out
    assert "record" in out.message
    assert tree(session.workspace.root) == before


def test_dot_segments_and_double_slashes_are_normalized(session: ToolSession) -> None:
    out = session.read("./memory//decisions/./use-sqlite-wal.md")
    assert out.ok and out.data["path"] == "memory/decisions/use-sqlite-wal.md"


@pytest.mark.parametrize("bad", [None, 42, ["memory/summary.md"]])
def test_non_string_paths_are_refused_not_raised(session: ToolSession, bad: object) -> None:
    assert session.read(bad).error == "path"  # type: ignore[arg-type]
    assert session.delete(bad, "r").error == "path"  # type: ignore[arg-type]


def test_every_record_argument_takes_a_slug_or_a_record_path_and_nothing_else(session: ToolSession) -> None:
    root = session.workspace.root
    (root / "knowledge/notes.txt").write_text("not a record", encoding="utf-8")
    (root / "memory/decisions/README").write_text("not a record", encoding="utf-8")
    read = session.read("use-sqlite-wal")
    assert read.ok and read.data["path"] == "memory/decisions/use-sqlite-wal.md"
    assert session.read("summary").data["path"] == "memory/summary.md"
    assert session.read("memory/decisions").ok and session.read("knowledge/").ok  # folders list
    for path in ("knowledge/notes.txt", "memory/decisions/README", "memory/workflow/x/y.md"):
        for name, args in _calls(path):
            out = session.call(name, args)
            assert out.error == "path" and "records are named by slug" in out.message, (name, out)
    before = tree(root)
    out = session.write("brand-new", record(), "create", "r")
    assert out.error == "not-found" and "a new record needs its path" in out.message
    (root / "knowledge/use-sqlite-wal.md").write_text(record("knowledge"), encoding="utf-8")
    out = session.read("use-sqlite-wal")
    assert out.error == "path" and "names 2 records" in out.message and "give the path" in out.message
    (root / "knowledge/use-sqlite-wal.md").unlink()
    assert tree(root) == before
    edited = session.edit("use-sqlite-wal", "WAL", "write-ahead log", "spell it out", replace_all=True)
    assert edited.ok and "memory/decisions/use-sqlite-wal.md" in edited.message
    assert session.journal[-1].path == "memory/decisions/use-sqlite-wal.md"
