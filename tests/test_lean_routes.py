"""`memcli context` and `memcli search` skip Typer (memcli.entry → memcli.lean) and must behave
exactly like the CLI: same output, same exit code, for every argument shape the lean route takes;
any other shape goes through Typer."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "workspace"
PROBE = """
import sys
from {module} import main
try:
    main(sys.argv[1:])
except SystemExit as exc:
    print("TYPER:" + str("typer" in sys.modules), file=sys.stderr)
    raise
"""


def _route(module: str, cwd: Path, argv: list[str], env: dict[str, str] | None = None) -> tuple:
    done = subprocess.run([sys.executable, "-c", PROBE.format(module=module), *argv], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)
    *err, flag = done.stderr.splitlines()
    return done.returncode, done.stdout, "\n".join(err), flag == "TYPER:True"


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    shutil.copytree(EXAMPLE, root)
    return root


LEAN = [
    ["context"],
    ["context", "--json"],
    ["context", "--format", "json"],
    ["context", "-f", "markdown", "--budget", "300"],
    ["context", "--budget=300", "--json"],
    ["context", "--json", "--format", "markdown"],  # refused the same way
    ["context", "--budget", "50"],  # too small: the same error
    ["context", "--format", "yaml"],
    ["context", "--agent", "claude-code"],  # as that agent gets it (memcli skills sync)
    ["context", "-a", "codex", "--json"],
    ["context", "--agent", "cursor"],  # refused the same way
    ["search", "sqlite backup"],
    ["search", "sqlite backup", "--json"],
    ["search", "--json", "-t", "knowledge", "-t", "decision", "wal"],
    ["search", "wal", "--limit", "1"],
    ["search", "wal", "-n", "0"],
    ["search", "wal", "--kind", "howto", "--json"],
    ["search", "wal", "--type", "nope"],
    ["search", "!!!"],
    ["search", ""],
    ["search", "zzzz-nothing-matches"],
    ["search", "sqlite", "--include-replaced", "--lexical"],
    ["search", "sqlite", "--status", "replaced", "--json"],
]
TYPER = [
    ["context", "--help"],
    ["context", "--budget", "abc"],
    ["context", "--budget"],
    ["context", "extra"],
    ["context", "--json", "--json"],
    ["search"],
    ["search", "a", "b"],
    ["search", "--", "-not-an-option"],
    ["search", "wal", "--limit=x"],
    ["search", "wal", "--unknown"],
]


@pytest.mark.parametrize("argv", LEAN, ids=" ".join)
def test_lean_route_matches_the_cli(ws: Path, argv: list[str]) -> None:
    lean = _route("memcli.entry", ws, argv)
    typer = _route("memcli.cli", ws, argv)
    assert lean[:3] == typer[:3]
    assert not lean[3] and typer[3]


@pytest.mark.parametrize("argv", TYPER, ids=" ".join)
def test_other_shapes_go_through_typer(ws: Path, argv: list[str]) -> None:
    lean = _route("memcli.entry", ws, argv)
    assert lean[3]
    assert lean[:3] == _route("memcli.cli", ws, argv)[:3]


def test_workspace_option_and_broken_records(ws: Path, tmp_path: Path) -> None:
    (ws / "knowledge" / "broken.md").write_text("no frontmatter, but sqlite\n", encoding="utf-8")
    for argv in (["search", "sqlite", "-w", str(ws)], ["search", "sqlite", f"--workspace={ws}"],
                 ["context", "--workspace", str(ws)]):
        lean = _route("memcli.entry", tmp_path, argv)
        assert lean[:3] == _route("memcli.cli", tmp_path, argv)[:3] and not lean[3]
    assert "not valid records" in _route("memcli.entry", tmp_path, ["search", "sqlite", "-w", str(ws)])[1]


def test_plain_lines_are_what_rich_prints_off_a_terminal(ws: Path) -> None:
    # The lean renderer leaves rich out; forcing a terminal brings rich back (and its table).
    import os

    lean = _route("memcli.entry", ws, ["search", "sqlite"])
    assert lean[0] == 0 and lean[1].startswith("#\trecord\ttype\tscore\tdescription / snippet\n")
    env = {**os.environ, "FORCE_COLOR": "1"}
    table = _route("memcli.entry", ws, ["search", "sqlite"], env)
    assert table[0] == 0 and "┃" in table[1] or "│" in table[1]
