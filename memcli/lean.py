"""The lean routes: the argument shapes git, the commit hook and the agents send memcli on every
call, parsed here and run straight from memcli.commands without Typer.

Each of these is paid at a moment someone waits for it: git runs `memcli merge-driver` once per
file both branches changed, the pre-commit hook `memcli lint --paths-only …` on every commit, an
agent `memcli context` and `memcli hooks session-start` at every session start, `memcli search` at
its tool calls, `memcli extract --hook` at every session end, and it gives `memcli mcp` about a
second to answer its handshake. Importing Typer and building the command tree is a sizeable part
of each start-up. So one table (ROUTES) says which option shapes a command takes here, and one
parser (`parse`) reads them; anything else (`--help`, an unknown or repeated option, a value Typer
would refuse, a query that looks like an option) goes to the Typer CLI, which calls the same
command with the same values. Tests run both routes on the same arguments and compare what they
print and exit with (tests/test_lean_routes.py, tests/lint/test_hook_entry.py). Telling the shapes
apart imports nothing.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from memcli.boundary import run_guarded


# Plain classes, not dataclasses: building a dataclass costs more than this whole table, and the
# commit hook pays every import of this module.
class Opt:
    """An option (or positional argument) of a route."""

    __slots__ = ("key", "many", "value")

    def __init__(self, key: str, value: Callable[[str], Any] | None = str, many: bool = False) -> None:
        self.key = key  # the command function's parameter
        self.value = value  # what a value converts to; None: a flag (no value)
        self.many = many  # repeatable (a list), or the positional arguments left over


class Route:
    """A command's argument shapes handled here, and the function in memcli.commands it calls."""

    __slots__ = ("args", "command", "dashdash", "guarded", "options", "plugins_off", "required", "selects",
                 "words")

    def __init__(self, words: tuple[str, ...], command: str, options: dict[str, Opt] | None = None, *,
                 args: tuple[Opt, ...] = (), required: tuple[str, ...] = (), selects: tuple[str, ...] = (),
                 dashdash: bool = False, guarded: bool = True, plugins_off: bool = True) -> None:
        self.words = words  # the command words, e.g. ("hooks", "session-start")
        self.command = command  # memcli.commands.<module>[:<function>] (default function: run)
        self.options = options or {}
        self.args = args  # positional arguments, in order; a `many` one takes the rest
        self.required = required  # option keys that must be given (else the CLI decides)
        self.selects = selects  # required keys that only choose this route (not passed on)
        self.dashdash = dashdash  # `--` ends the options
        self.guarded = guarded  # errors through memcli.boundary (else the command answers for its own)
        self.plugins_off = plugins_off  # pydantic plugins not looked for (see `_no_pydantic_plugins`)


WORKSPACE = {"-w": Opt("workspace", Path), "--workspace": Opt("workspace", Path)}
FLAG = None
ROUTES = (
    Route(("merge-driver",), "merge_driver",
          args=(Opt("base"), Opt("ours"), Opt("theirs"), Opt("path")), guarded=False, plugins_off=False),
    Route(("lint",), "lint", {"--paths-only": Opt("paths_only", FLAG), **WORKSPACE},
          args=(Opt("paths", Path, many=True),), required=("paths_only",), dashdash=True),
    Route(("mcp",), "mcp", WORKSPACE),
    Route(("hooks", "session-start"), "hooks:session_start",
          {"-a": Opt("agent"), "--agent": Opt("agent"), **WORKSPACE}, guarded=False),
    Route(("context",), "context",
          {"--budget": Opt("budget", int), "--format": Opt("fmt"), "-f": Opt("fmt"),
           "--json": Opt("as_json", FLAG), "--agent": Opt("agent"), "-a": Opt("agent"), **WORKSPACE}),
    Route(("search",), "search",
          {"--type": Opt("types", many=True), "-t": Opt("types", many=True), "--kind": Opt("kind"),
           "--status": Opt("status"), "--include-replaced": Opt("include_replaced", FLAG),
           "--limit": Opt("limit", int), "-n": Opt("limit", int), "--lexical": Opt("lexical", FLAG),
           "--json": Opt("as_json", FLAG), **WORKSPACE},
          args=(Opt("query"),)),
    Route(("skills", "sync"), "skills:sync_run",
          {"--agent": Opt("agents", many=True), "-a": Opt("agents", many=True),
           "--dry-run": Opt("dry_run", FLAG), "--json": Opt("as_json", FLAG), **WORKSPACE}),
    Route(("extract",), "extract_hook", {"--hook": Opt("hook", FLAG)}, required=("hook",), selects=("hook",),
          guarded=False, plugins_off=False),
)


def _integer(value: str) -> bool:
    return value.strip().lstrip("+-").isdigit()


def parse(route: Route, args: list[str]) -> dict[str, Any] | None:
    """The command's keyword arguments from `args` (after the command words), or None for anything
    this route leaves to the CLI."""
    values: dict[str, Any] = {}
    positional: list[str] = []
    ended = False
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        if ended or not arg.startswith("-") or arg == "-":
            positional.append(arg)
            continue
        if arg == "--" and route.dashdash:
            ended = True
            continue
        name, eq, inline = arg.partition("=")
        opt = route.options.get(name)
        if opt is None or (eq and not name.startswith("--")):
            return None  # --help, `--`, an unknown option, `-n5`: the CLI parses them
        if opt.value is None:
            if eq or opt.key in values:
                return None
            values[opt.key] = True
            continue
        if eq:
            value = inline
        elif i < len(args) and not args[i].startswith("-"):
            value = args[i]
            i += 1
        else:
            return None  # a missing value (or one that looks like an option): the CLI says so
        if opt.value is int and not _integer(value):
            return None  # not an integer: the CLI's message
        if opt.many:
            values.setdefault(opt.key, []).append(opt.value(value))
        elif opt.key in values:
            return None
        else:
            values[opt.key] = opt.value(value)
    if any(key not in values for key in route.required):
        return None
    for key in route.selects:
        del values[key]
    fixed = [a for a in route.args if not a.many]
    rest = [a for a in route.args if a.many]
    if len(positional) < len(fixed) or (not rest and len(positional) > len(fixed)):
        return None
    for spec, value in zip(fixed, positional, strict=False):
        values[spec.key] = spec.value(value) if spec.value else value
    for spec in rest:
        values[spec.key] = [spec.value(v) if spec.value else v for v in positional[len(fixed):]]
    return values


def _no_pydantic_plugins() -> None:
    """Looking for pydantic plugins (validation tracers) reads every installed distribution's entry
    points, ~10% of a lean route; memcli's models have nothing for them to trace. A user's explicit
    setting still wins."""
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")


def route(args: list[str]) -> Callable[[], int] | None:
    """The command `args` ask for, ready to run, when they are a shape handled here; else None."""
    for found in ROUTES:
        if tuple(args[: len(found.words)]) == found.words:
            values = parse(found, args[len(found.words):])
            return None if values is None else _ready(found, values)
    return None


def _ready(found: Route, values: dict[str, Any]) -> Callable[[], int]:
    module, _, name = found.command.partition(":")
    if found.plugins_off:
        _no_pydantic_plugins()

    def command() -> int:  # the command's module is loaded inside the error boundary
        # __import__, not importlib.import_module: `python -X importtime` sees only the former
        loaded = __import__(f"memcli.commands.{module}", fromlist=["run"])
        return getattr(loaded, name or "run")(**values)

    if not found.guarded:
        return command

    return lambda: run_guarded(command)
