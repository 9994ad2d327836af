"""The Typer app: parse arguments, call the library, exit. No business logic lives here."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from memcli import __version__

app = typer.Typer(
    name="memcli",
    help="Git-native project memory for AI coding agents.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)

# Shared options, defined once.
WorkspaceOpt = Annotated[
    Optional[Path],  # noqa: UP045 - Typer reads the annotation at runtime
    typer.Option("--workspace", "-w", help="Workspace root (default: found above the current directory).",
                 show_default=False),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON for scripts.")]


def _open(workspace: Path | None):
    from memcli.workspace import Workspace

    return Workspace.open(workspace)


def _version(value: bool) -> None:
    if value:
        print(f"memcli {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Show the version and exit.")
    ] = False,
) -> None:
    """Git-native project memory for AI coding agents."""


@app.command()
def lint(
    paths: Annotated[Optional[list[Path]], typer.Argument(help="Files or folders (default: the whole workspace).")] = None,  # noqa: UP045
    fmt: Annotated[str, typer.Option("--format", "-f", help="auto|text|json|github|sarif")] = "auto",
    strict: Annotated[bool, typer.Option("--strict", help="Fail on warnings too.")] = False,
    workspace: WorkspaceOpt = None,
) -> None:
    """Check records: schema, references, size caps, secrets, bloat warnings."""
    from memcli.lint.run import run

    ws = _open(workspace if workspace else _workspace_from_paths(paths))
    raise typer.Exit(run(ws, list(paths or []), fmt=fmt, strict=strict))


def _workspace_from_paths(paths: list[Path] | None) -> Path | None:
    """Paths passed without --workspace: find the workspace above the first one."""
    from memcli.workspace import find_root

    if not paths:
        return None
    first = paths[0].resolve()
    return find_root(first if first.is_dir() else first.parent)


@app.command()
def init(workspace: WorkspaceOpt = None) -> None:
    """Create the memory layout, a commented memcli.toml and .gitignore entries (idempotent)."""
    from memcli.init import run

    raise typer.Exit(run(workspace or Path.cwd()))


def main(argv: list[str] | None = None) -> None:
    from memcli.boundary import run_guarded

    sys.exit(run_guarded(lambda: app(args=argv, standalone_mode=False)))
