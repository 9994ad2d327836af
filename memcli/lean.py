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
from typing import Any

from memcli.boundary import run_guarded
from memcli.front import FLAG, find


class Route:
    """A command of the table (memcli.front) whose hot argument shapes are parsed here: which of its
    options (`takes`, default all), and how it runs."""

    __slots__ = ("args", "command", "dashdash", "guarded", "options", "plugins_off", "required", "selects",
                 "words")

    def __init__(self, words: tuple[str, ...], takes: tuple[str, ...] | None = None, *, target: str = "",
                 required: tuple[str, ...] = (), selects: tuple[str, ...] = (), dashdash: bool = False,
                 guarded: bool = True, plugins_off: bool = True) -> None:
        declared = find(words)
        self.words = words  # the command words, e.g. ("hooks", "session-start")
        # memcli.commands.<module>[:<function>] (default function: run)
        self.command = target or declared.target
        self.options = {name: opt for name, opt in declared.names().items()
                        if takes is None or opt.key in takes}
        # positional arguments, in order; a `many` one takes the rest
        self.args = tuple(a for a in declared.args() if takes is None or a.key in takes)
        self.required = required  # option keys that must be given (else the CLI decides)
        self.selects = selects  # required keys that only choose this route (not passed on)
        self.dashdash = dashdash  # `--` ends the options
        self.guarded = guarded  # errors through memcli.boundary (else the command answers for its own)
        self.plugins_off = plugins_off  # pydantic plugins not looked for (see `_no_pydantic_plugins`)


ROUTES = (
    Route(("merge-driver",), guarded=False, plugins_off=False),
    Route(("lint",), ("paths", "paths_only", "workspace"), required=("paths_only",), dashdash=True),
    Route(("mcp",), ("workspace",)),  # --relay: the CLI's (a consolidation starts it, not an agent)
    Route(("hooks", "session-start"), guarded=False),
    Route(("context",)),
    Route(("search",)),
    Route(("skills", "sync")),
    # the hook's own module: `memcli.commands.extract` would load the extraction the worker runs later
    Route(("extract",), ("hook",), target="extract_hook", required=("hook",), selects=("hook",),
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
        if opt.type is FLAG:
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
        if opt.type is int and not _integer(value):
            return None  # not an integer: the CLI's message
        if opt.many:
            values.setdefault(opt.key, []).append(opt.type(value))
        elif opt.key in values:
            return None
        else:
            values[opt.key] = opt.type(value)
    if any(key not in values for key in route.required):
        return None
    for key in route.selects:
        del values[key]
    fixed = [a for a in route.args if not a.many]
    rest = [a for a in route.args if a.many]
    if len(positional) < len(fixed) or (not rest and len(positional) > len(fixed)):
        return None
    for spec, value in zip(fixed, positional, strict=False):
        values[spec.key] = spec.type(value)
    for spec in rest:
        values[spec.key] = [spec.type(v) for v in positional[len(fixed):]]
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
