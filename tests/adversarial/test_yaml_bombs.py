"""Planted YAML cannot hang memcli (#37 item 1): alias bombs, tags, merge keys and deep nesting in a
record's frontmatter are one lint finding on every route (lint, its cache, the write tools), read in
memory bounded by the file's size; and generated frontmatter of any shape never makes lint raise."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lint.kit import make_workspace, path_of, record
from tools.helpers import CANDIDATE_SRC, RUN_SRC
from tools.helpers import record as tool_record

from memcli.cli import main
from memcli.plainyaml import _plain, _scan
from memcli.tools import ToolSession
from memcli.workspace import Workspace

P = path_of("decision", "a")


def bomb(levels: int) -> str:
    """Billion laughs: `levels` anchors, each aliasing the one before nine times (9**levels values)."""
    lines = ['a0: ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for n in range(1, levels + 1):
        lines.append(f"a{n}: &a{n} [" + ", ".join([f"*a{n - 1}"] * 9) + "]")
    lines[0] = lines[0].replace("a0: ", "a0: &a0 ")
    return "\n".join(lines)


def _with(extra: str) -> str:
    return record("decision").replace("\n---\n", f"\n{extra}\n---\n", 1)


def _lint(root: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, list[dict]]:
    with pytest.raises(SystemExit) as exit_info:
        main(["lint", "--workspace", str(root), "--format", "json"])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return exit_info.value.code, [f for f in json.loads(out)["findings"] if f["path"] == P]


@pytest.mark.parametrize("levels", [8, 9, 20])
def test_an_alias_bomb_is_one_finding_read_in_bounded_memory(levels: int, tmp_path: Path, capsys) -> None:
    text = _with(bomb(levels))
    assert len(text.encode()) < 4_000
    root = make_workspace(tmp_path / "ws", {P: text})
    tracemalloc.start()
    try:
        code, findings = _lint(root, capsys)
        code_cached, cached = _lint(root, capsys)  # the cache keeps the finding, not an expansion
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert code == code_cached == 1
    assert [f["code"] for f in findings] == [f["code"] for f in cached] == ["yaml-feature"]
    assert peak < 64 * 2**20, f"peak {peak} bytes for a {len(text)}-character record"
    state = sum(p.stat().st_size for p in (root / ".memcli").rglob("*") if p.is_file())
    assert state < 4 * 2**20  # the old codec wrote a 261 MB cache for 8 levels


@pytest.mark.parametrize("depth", [10_000, 100_000])
def test_deep_nesting_is_a_finding_not_a_crash(depth: int, tmp_path: Path, capsys) -> None:
    root = make_workspace(tmp_path / "ws", {P: _with("deep: " + "[" * depth)})
    code, findings = _lint(root, capsys)
    assert code == 1 and [f["code"] for f in findings] == ["yaml-feature"]


def test_the_write_tool_refuses_a_bomb_and_writes_nothing(example_ws: Path) -> None:
    session = ToolSession(Workspace.open(example_ws), allowed_sources=[RUN_SRC],
                          knowledge_sources=[CANDIDATE_SRC])
    text = tool_record("decision", "Adopt ruff.\n").replace("\n---\n", f"\n{bomb(9)}\n---\n", 1)
    out = session.write("memory/decisions/bomb.md", text, "create", "planted")
    assert not out.ok
    assert "yaml-feature" in str(out), out
    assert not (example_ws / "memory/decisions/bomb.md").exists()
    assert not session.journal


# Frontmatter built from YAML's own pieces, the risky ones included, in any order and nesting.
PIECES = st.sampled_from(["a", "b: 1", "- x", "&x", "*x", "!!str", "!t", "<<:", "? k", "[", "]", "{", "}",
                          ",", ":", "- - -", "'q'", '"認証"', "|", ">", "#c", "\t", "\x00", "\ufeff",
                          "                        ", "\n", "\n  ", "---", "...", "%YAML 1.1"])
FRONT = st.lists(PIECES, max_size=60).map(" ".join)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(front=FRONT)
def test_generated_frontmatter_never_makes_lint_raise(front: str, tmp_path_factory, capsys) -> None:
    root = make_workspace(tmp_path_factory.mktemp("ws"), {P: f"---\n{front}\n---\nbody\n"})
    with pytest.raises(SystemExit) as exit_info:
        main(["lint", "--workspace", str(root), "--format", "json"])
    out, err = capsys.readouterr()
    assert exit_info.value.code in (0, 1, 2), err
    assert "Traceback" not in err
    json.loads(out)


@settings(max_examples=400, deadline=None)
@given(front=FRONT)
def test_what_the_fast_path_passes_a_scan_never_refuses(front: str) -> None:
    if _plain(front):
        assert _scan(front) is None
