"""No command composes the YAML of a record that has not changed since any command last read it:
the store keeps what the full YAML parser gave. Plain frontmatter (memcli.records.fastyaml, nearly
every record) is not kept: reading it again costs less than keeping it."""

from __future__ import annotations

import io
from contextlib import redirect_stdout
from pathlib import Path

import pytest

from memcli.commands.gc_report import report as gc_run
from memcli.commands.lint import check as lint_run
from memcli.context import build_context
from memcli.records import parse
from memcli.search import search
from memcli.store import open_store
from memcli.why import story
from memcli.workspace import Workspace

# Records given a frontmatter the plain reader leaves to PyYAML (a comment line).
COMPOSED = ("knowledge/wal-mode.md", "knowledge/sqlite-backup.md")


@pytest.fixture
def yaml_reads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many times the full YAML parser read a frontmatter (one item per read)."""
    reads: list[int] = []
    real = parse._load_full

    def counting(front: str):  # type: ignore[no-untyped-def]
        reads.append(1)
        return real(front)

    monkeypatch.setattr(parse, "_load_full", counting)
    return reads


def _quiet(fn, *args, **kwargs):  # type: ignore[no-untyped-def]
    with redirect_stdout(io.StringIO()):
        return fn(*args, **kwargs)


def _composed(example: Path) -> None:
    for rel in COMPOSED:
        path = example / rel
        path.write_text(path.read_text(encoding="utf-8").replace("---\n", "---\n# reviewed\n", 1),
                        encoding="utf-8")


def test_each_record_is_composed_once_whichever_command_reads_it_first(example: Path, yaml_reads) -> None:
    _composed(example)
    ws = Workspace.open(example)
    search(ws, "sqlite backup")
    assert len(yaml_reads) == len(COMPOSED)  # the first reader composed each, once
    yaml_reads.clear()
    build_context(ws)
    _quiet(lint_run, ws, [], fmt="json")
    _quiet(lint_run, ws, [example / "knowledge/wal-mode.md"], fmt="json", paths_only=True)
    _quiet(gc_run, ws, fmt="json")
    story(ws, "sqlite-backup")
    search(ws, "wal mode")
    assert yaml_reads == []
    # One record edited: the next reader composes it (once), the others do not compose it again.
    path = example / "knowledge/wal-mode.md"
    path.write_text(path.read_text(encoding="utf-8").replace("WAL", "Write-ahead log", 1), encoding="utf-8")
    _quiet(lint_run, ws, [path], fmt="json", paths_only=True)
    assert len(yaml_reads) == 1
    build_context(ws)
    _quiet(gc_run, ws, fmt="json")
    search(ws, "write-ahead")
    assert len(yaml_reads) == 1


def test_the_store_keeps_only_what_the_full_parser_gave(example: Path) -> None:
    _composed(example)
    ws = Workspace.open(example)
    search(ws, "sqlite")
    with open_store(ws) as store:
        kept = {path: store.loaded(path)[1] is not None for path in store.hashes()}  # type: ignore[index]
    assert {path for path, yes in kept.items() if yes} == set(COMPOSED)
    # What every reader gives is the same as reading the files without the store.
    assert _quiet(lint_run, ws, [], fmt="json") == _quiet(lint_run, ws, [], fmt="json", use_cache=False)
    assert story(ws, "wal-mode").to_json() == story(ws, "wal-mode", use_store=False).to_json()
    assert story(ws, "use-sqlite-wal").to_json() == story(ws, "use-sqlite-wal", use_store=False).to_json()


def test_the_store_keeps_no_yaml_it_cannot_give_back(example: Path, yaml_reads) -> None:
    # A value outside what the store's codec keeps (a tagged ordered map) is refused by the parser
    # (plain YAML only, yaml-feature), and the store gives back that refusal, as a fresh read does.
    path = example / "knowledge/wal-mode.md"
    path.write_text(path.read_text(encoding="utf-8").replace("---\n", "---\nodd: !!omap [a: 1]\n", 1),
                    encoding="utf-8")
    ws = Workspace.open(example)
    first = _quiet(lint_run, ws, [path], fmt="json", paths_only=True)
    assert first == _quiet(lint_run, ws, [path], fmt="json", paths_only=True, use_cache=False)
    assert story(ws, "wal-mode").to_json() == story(ws, "wal-mode", use_store=False).to_json()
    with open_store(ws) as store:
        assert b"plain YAML only" in bytes(store.loaded("knowledge/wal-mode.md")[1] or b"")
        assert store.loaded("knowledge/sqlite-backup.md")[1] is None  # plain: read again, not kept
