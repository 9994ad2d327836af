"""The commit hook's `memcli lint --paths-only …` skips Typer (memcli.entry → memcli.lean) and
must behave exactly like the CLI: same output, same exit code, for every argument shape the hooks
use; any other shape goes through Typer."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "workspace"
PROBE = """
import sys
from {module} import main
try:
    main(sys.argv[1:])
except SystemExit as exc:
    print("TYPER:" + str("typer" in sys.modules), file=sys.stderr)
    raise
"""
BAD = "---\nupdated_at: not a date\n---\nBody.\n"


def _route(module: str, cwd: Path, argv: list[str]) -> tuple[int, str, str, bool]:
    done = subprocess.run([sys.executable, "-c", PROBE.format(module=module), *argv], cwd=cwd,
                          capture_output=True, text=True, timeout=120)
    *err, flag = done.stderr.splitlines()
    return done.returncode, done.stdout, "\n".join(err), flag == "TYPER:True"


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    shutil.copytree(EXAMPLE, root)
    (root / "knowledge" / "broken.md").write_text(BAD, encoding="utf-8")
    (root / "README.md").write_text("# not a record\n", encoding="utf-8")
    return root


def _decision(ws: Path) -> str:
    return sorted(p.relative_to(ws).as_posix() for p in (ws / "memory" / "decisions").glob("*.md"))[0]


@pytest.mark.parametrize("shape", ["clean", "bad", "none", "workspace", "dashdash", "outside", "missing",
                                   "no-workspace"])
def test_lean_route_matches_the_cli(ws: Path, tmp_path: Path, shape: str) -> None:
    cwd, one = ws, _decision(ws)
    argv = {
        "clean": ["lint", "--paths-only", one],
        "bad": ["lint", "--paths-only", one, "knowledge/broken.md"],
        "none": ["lint", "--paths-only"],
        "workspace": ["lint", "--paths-only", "-w", str(ws), str(ws / "knowledge/broken.md")],
        "dashdash": ["lint", "--paths-only", "--workspace", str(ws), "--", "knowledge/broken.md",
                     "README.md"],
        "outside": ["lint", "--paths-only", "README.md"],
        "missing": ["lint", "--paths-only", "knowledge/gone.md"],
        "no-workspace": ["lint", "--paths-only", "x.md"],
    }[shape]
    if shape == "no-workspace":
        cwd = tmp_path / "empty"
        cwd.mkdir()
        (cwd / "x.md").write_text(BAD, encoding="utf-8")
    lean = _route("memcli.entry", cwd, argv)
    cli = _route("memcli.cli", cwd, argv)
    assert lean[:3] == cli[:3]
    assert not lean[3] and cli[3]  # the lean route never imported Typer
    expected = {"clean": 0, "bad": 1, "none": 0, "workspace": 1, "dashdash": 1, "outside": 0, "missing": 2,
                "no-workspace": 2}[shape]
    assert lean[0] == expected, lean


@pytest.mark.parametrize("argv", [
    ["lint", "--paths-only", "--strict", "memory/summary.md"],
    ["lint", "--paths-only", "--format", "json", "memory/summary.md"],
    ["lint", "memory/summary.md"],
    ["lint", "--paths-only", "-x.md"],
])
def test_other_shapes_go_through_typer(ws: Path, argv: list[str]) -> None:
    lean = _route("memcli.entry", ws, argv)
    assert lean[3]
    assert lean[:3] == _route("memcli.cli", ws, argv)[:3]


def test_the_hook_on_a_valid_record_loads_none_of_the_heavy_libraries(ws: Path) -> None:
    """Every commit pays the hook's start: it reads the config and lints a record without Typer,
    pydantic (a plainly valid frontmatter), tomlkit (agents' config files) or litellm."""
    (ws / "knowledge" / "broken.md").unlink()  # (its errors are worded by pydantic)
    probe = ("import sys\nfrom memcli.entry import main\ntry:\n    main(sys.argv[1:])\nexcept SystemExit:\n"
             "    print(sorted(m for m in ('typer', 'pydantic', 'tomlkit', 'litellm') if m in sys.modules),"
             " file=sys.stderr)\n    raise\n")
    done = subprocess.run([sys.executable, "-c", probe, "lint", "--paths-only", _decision(ws)], cwd=ws,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines()[-1] == "[]"
