"""The commands: one module per command (a group: one module, a function per subcommand).

Each command is a function `run(...) -> int` (the exit code) taking the values its options parse
to: the Typer app (memcli.cli) and the lean routes (memcli.lean) only parse arguments and call it,
so both routes run the same code. What a command does is library code below (memcli.search,
memcli.lint, ...); here it is read from the arguments, called, and printed.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

from memcli.errors import UsageError, WorkspaceNotFound

if TYPE_CHECKING:
    from memcli.workspace import Workspace


def open_workspace(workspace: Path | None) -> Workspace:
    """The workspace `--workspace` names, else the one found above the current directory."""
    # here and below: `memcli extract --hook` loads this package, and the agent waits for it at every
    # session end; memcli.workspace would bring the config machinery along
    from memcli.workspace import Workspace

    return Workspace.open(workspace)


def workspace_or_here(workspace: Path | None, need: bool) -> Any:
    """The workspace, or where none is found and `need` is false (transcript paths were given:
    they are read outside a workspace too), this folder with the default config and no state folder,
    so nothing is cached."""
    # here: as in open_workspace
    from memcli.config import Config
    from memcli.workspace import Workspace

    try:
        return Workspace.open(workspace)
    except WorkspaceNotFound:
        if need:
            raise
        return SimpleNamespace(root=Path.cwd(), config=Config(), state_dir=None)


def json_format(fmt: str, as_json: bool, default: str) -> str:
    """`--json` is `--format json` (every command with JSON output takes it)."""
    if as_json and fmt not in (default, "json"):
        raise UsageError(f"--json and --format {fmt} disagree; give one of them")
    return "json" if as_json else fmt


def workspace_of_paths(paths: list[Path] | None) -> Path | None:
    """Paths passed without --workspace: the workspace above the first one."""
    from memcli.workspace import find_root  # here: as in open_workspace

    if not paths:
        return None
    first = paths[0].resolve()
    return find_root(first if first.is_dir() else first.parent)
