"""The commit path without the CLI layer: `memcli lint --paths-only [-w DIR] [--] PATHS…`.

The pre-commit framework and hooks/pre-commit start one memcli per commit, always with these
arguments. Importing Typer and building the whole command tree is a sizeable part of that
start-up, so `memcli.entry` sends exactly these argument shapes here and everything else (any
other option, a path that looks like one) to the Typer CLI, which does the same thing. A test runs
both routes on the same arguments and compares what they print and exit with. This module sits
outside `memcli.lint` so that telling the shapes apart imports nothing.
"""

from __future__ import annotations

from pathlib import Path


def parse(args: list[str]) -> tuple[Path | None, list[Path]] | None:
    """(workspace, paths) when `args` (after `lint`) is a hook invocation, else None."""
    if args[:1] != ["--paths-only"]:
        return None
    rest, workspace = args[1:], None
    if rest[:1] in (["--workspace"], ["-w"]) and len(rest) >= 2:
        workspace, rest = Path(rest[1]), rest[2:]
    if rest[:1] == ["--"]:
        rest = rest[1:]
    elif any(arg.startswith("-") for arg in rest):
        return None  # another option: the CLI parses it
    return workspace, [Path(arg) for arg in rest]


def run(workspace: Path | None, paths: list[Path]) -> int:
    from memcli.lint.run import run as lint_run
    from memcli.workspace import Workspace, find_root

    if workspace is None and paths:  # as the CLI does: the workspace above the first path
        first = paths[0].resolve()
        workspace = find_root(first if first.is_dir() else first.parent)
    return lint_run(Workspace.open(workspace), paths, fmt="auto", strict=False, paths_only=True,
                    use_cache=True)
