"""The per-file result cache never changes a verdict: same findings warm, cold, after edits."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from lint.kit import make_workspace, path_of, record

from memcli.commands.lint import check
from memcli.store import store_path
from memcli.workspace import Workspace

FILES = {
    path_of("decision", "bad-status"): record("decision", status="Done"),
    path_of("decision", "old"): record("decision", status="replaced", replaced_by="newer"),
    path_of("decision", "newer"): record("decision", body="x" * 1600),
    path_of("workflow", "release"): record("workflow", requires="[newer, gone]"),
    "knowledge/k.md": record("knowledge", body="db: postgres://app:s3cr3tPass@db/x\n"),
}


def _findings(root: Path, capsys, *, use_cache: bool, paths: list[Path] | None = None) -> tuple[int, list]:
    code = check(Workspace.open(root), paths or [], fmt="json", use_cache=use_cache)
    return code, json.loads(capsys.readouterr().out)["findings"]


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    return make_workspace(tmp_path / "ws", FILES)


def test_warm_cache_gives_the_same_findings(ws: Path, capsys) -> None:
    cold = _findings(ws, capsys, use_cache=False)
    assert cold[0] == 1 and {f["code"] for f in cold[1]} >= {"invalid-status", "dangling-reference", "secret"}
    first = _findings(ws, capsys, use_cache=True)
    assert store_path(Path(os.environ["MEMCLI_STATE_DIR"]), ws).is_file()
    second = _findings(ws, capsys, use_cache=True)
    assert cold == first == second


def test_an_edit_is_seen_and_a_fix_clears(ws: Path, capsys) -> None:
    _findings(ws, capsys, use_cache=True)
    target = ws / path_of("decision", "bad-status")
    target.write_text(record("decision", status="resolved"), encoding="utf-8")
    (ws / path_of("decision", "newer")).unlink()  # now `old` dangles
    warm = _findings(ws, capsys, use_cache=True)
    assert warm == _findings(ws, capsys, use_cache=False)
    assert not any(f["path"] == path_of("decision", "bad-status") for f in warm[1])
    assert ("dangling-reference", path_of("decision", "old")) in {(f["code"], f["path"]) for f in warm[1]}


def test_one_file_run_then_whole_run(ws: Path, capsys) -> None:
    one = _findings(ws, capsys, use_cache=True, paths=[ws / path_of("decision", "bad-status")])
    assert one == _findings(ws, capsys, use_cache=False, paths=[ws / path_of("decision", "bad-status")])
    assert _findings(ws, capsys, use_cache=True) == _findings(ws, capsys, use_cache=False)


def test_config_change_invalidates(ws: Path, capsys) -> None:
    before = _findings(ws, capsys, use_cache=True)
    assert "low-value-large" in {f["code"] for f in before[1]}
    (ws / "memcli.toml").write_text("[lint]\nlow_value_body_chars = 5000\n", encoding="utf-8")
    after = _findings(ws, capsys, use_cache=True)
    assert "low-value-large" not in {f["code"] for f in after[1]}


def test_a_corrupt_cache_is_just_a_cold_run(ws: Path, capsys) -> None:
    expected = _findings(ws, capsys, use_cache=False)
    cache = store_path(Path(os.environ["MEMCLI_STATE_DIR"]), ws)
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_bytes(b"\x00garbage")
    assert _findings(ws, capsys, use_cache=True) == expected


# What the Linter imports but whose code cannot change a verdict: exceptions, the cache's own
# plumbing and store, git (what it answers is the history's, not the code's), plural wording.
_NO_VERDICT = {"errors", "codekey", "store", "git", "plural"}


def test_the_cache_fingerprint_covers_every_module_a_verdict_comes_from() -> None:
    """An edit of code the rules read through (the decoder, the secret table, ...) must drop the
    cached verdicts; a module left out of lint.cache._CODE would keep stale ones."""
    import ast

    from memcli.lint import cache

    package = Path(cache.__file__).resolve().parents[1]
    used: set[str] = set()
    for source in (package / "lint").rglob("*.py"):
        for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("memcli."):
                used.add(node.module.split(".")[1])
    assert [name for name in cache._CODE if not (package / name).exists()] == []  # e.g. secrets.py
    covered = {name.removesuffix(".py") for name in cache._CODE}
    assert used - _NO_VERDICT <= covered, sorted(used - _NO_VERDICT - covered)
