"""`memcli context`, `memcli search` and `memcli skills sync` without the CLI layer.

An agent pays `memcli context` at every session start and `memcli search` at every tool call, so
their start-up counts (and `memcli skills sync` is meant to be cheap enough to run at any time):
importing Typer and building the whole command tree is a sizeable part of it. `memcli.entry` sends
the argument shapes parsed here straight to the commands, and anything else (`--help`, an unknown
or repeated option, a value Typer would refuse, a query that looks like an option) to the Typer
CLI, which does the same thing. Tests run both routes on the same arguments and compare what they
print and exit with. Like `memcli.lint_hook`, telling the shapes apart imports nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

# option → (its name for the command, takes a value)
CONTEXT = {"--budget": ("budget", True), "--format": ("fmt", True), "-f": ("fmt", True),
           "--json": ("as_json", False), "--workspace": ("workspace", True), "-w": ("workspace", True),
           "--agent": ("agent", True), "-a": ("agent", True)}
SEARCH = {"--type": ("types", True), "-t": ("types", True), "--kind": ("kind", True),
          "--status": ("status", True), "--include-replaced": ("include_replaced", False),
          "--limit": ("limit", True), "-n": ("limit", True), "--lexical": ("lexical", False),
          "--json": ("as_json", False), "--workspace": ("workspace", True), "-w": ("workspace", True)}
SKILLS_SYNC = {"--agent": ("agents", True), "-a": ("agents", True), "--dry-run": ("dry_run", False),
               "--json": ("as_json", False), "--workspace": ("workspace", True), "-w": ("workspace", True)}
_INTS = ("budget", "limit")
_REPEATABLE = ("types", "agents")


def _options(args: list[str], known: dict[str, tuple[str, bool]]) -> tuple[dict, list[str]] | None:
    """(options, positional arguments) of a plain argument list, or None for anything else."""
    opts: dict[str, object] = {}
    positional: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if not arg.startswith("-") or arg == "-":
            positional.append(arg)
            i += 1
            continue
        name, eq, inline = arg.partition("=")
        if name not in known or (eq and not name.startswith("--")):
            return None  # --help, `--`, an unknown option, `-n5`: the CLI parses them
        key, takes_value = known[name]
        if not takes_value:
            if eq or key in opts:
                return None
            opts[key] = True
            i += 1
            continue
        if eq:
            value = inline
        elif i + 1 < len(args) and not args[i + 1].startswith("-"):
            value = args[i + 1]
            i += 1
        else:
            return None  # a missing value (or one that looks like an option): the CLI says so
        i += 1
        if key in _INTS:
            if not value.strip().lstrip("+-").isdigit():
                return None  # not an integer: the CLI's message
            value = int(value)
        if key in _REPEATABLE:
            opts.setdefault(key, [])
            opts[key].append(value)  # type: ignore[union-attr]
        elif key in opts:
            return None
        else:
            opts[key] = value
    return opts, positional


def json_format(fmt: str, as_json: bool, default: str) -> str:
    """`--json` is `--format json` (every command with JSON output takes it)."""
    if as_json and fmt not in (default, "json"):
        from memcli.errors import UsageError

        raise UsageError(f"--json and --format {fmt} disagree; give one of them")
    return "json" if as_json else fmt


def parse(args: list[str]) -> Callable[[], int] | None:
    """The command `args` asks for, ready to run, when they are a shape handled here; else None."""
    if args[:1] == ["context"]:
        found = _options(args[1:], CONTEXT)
        if found is None or found[1]:
            return None
        return lambda: _context(**found[0])
    if args[:1] == ["search"]:
        found = _options(args[1:], SEARCH)
        if found is None or len(found[1]) != 1:
            return None
        return lambda: _search(found[1][0], **found[0])
    if args[:2] == ["skills", "sync"]:
        found = _options(args[2:], SKILLS_SYNC)
        if found is None or found[1]:
            return None
        return lambda: _skills_sync(**found[0])
    return None


def _open(workspace: object):  # -> Workspace
    from memcli.workspace import Workspace

    return Workspace.open(Path(str(workspace)) if workspace is not None else None)


def _context(budget: int | None = None, fmt: str = "markdown", as_json: bool = False,
             workspace: object = None, agent: str | None = None) -> int:
    from memcli.context import run

    fmt = json_format(fmt, as_json, "markdown")
    return run(_open(workspace), budget=budget, fmt=fmt, agent=agent)


def _skills_sync(agents: list[str] | None = None, dry_run: bool = False, as_json: bool = False,
                 workspace: object = None) -> int:
    from memcli.skills.command import run_sync

    return run_sync(_open(workspace), list(agents or []), dry_run=dry_run, as_json=as_json)


def _search(query: str, types: list[str] | None = None, kind: str | None = None, status: str | None = None,
            include_replaced: bool = False, limit: int = 10, lexical: bool = False, as_json: bool = False,
            workspace: object = None) -> int:
    from memcli.search.run import run

    return run(_open(workspace), query, types=types, kind=kind, status=status,
               include_replaced=include_replaced, limit=limit, as_json=as_json, lexical=lexical)
