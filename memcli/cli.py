"""The Typer app, built from the one table of commands and options (memcli.front): parse arguments,
call the command (memcli.commands), exit. No logic lives here.

Each command imports its module when it runs, not here: `memcli --help` and every command load only
what they use (tests/test_lean_start.py). The lean routes (memcli.lean) read the same table and call
the same functions.
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable
from typing import Annotated, Any, Optional

import typer

from memcli import __version__
from memcli.agents import registry
from memcli.boundary import run_guarded
from memcli.front import COMMANDS, FLAG, Command, Opt

ROOT_HELP = "Git-native project memory for AI coding agents."
app = typer.Typer(name="memcli", help=ROOT_HELP, no_args_is_help=True, add_completion=False,
                  pretty_exceptions_enable=False, rich_markup_mode=None)


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


class _Command(typer.core.TyperCommand):
    """Arguments shown the usual way: `QUERY` in the usage line and in the Arguments section, never
    Typer's `{query}` and its Python type (`<list[Path]>`); the table's metavar says it."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for param in self.params:
            if isinstance(param, typer.core.TyperArgument):
                # instance attributes: what Typer >= 0.2x calls for these two pieces of help
                param.display_type_rich = lambda ctx: None  # type: ignore[method-assign]
                param._usage_display_name = _usage_name(param).__str__  # type: ignore[method-assign]


def _usage_name(param: Any) -> str:
    name = param.metavar or param.name.upper()
    name = name if param.required else f"[{name}]"
    return name + ("..." if param.nargs != 1 else "")


def _help(opt: Opt) -> str:
    return opt.help.replace("{agents}", ", ".join(registry.options()))


def _annotation(opt: Opt) -> Any:
    """The parameter's annotation as Typer reads it: its type and its one declaration."""
    kind: Any = bool if opt.type is FLAG else opt.type
    if opt.many:
        kind = list[kind]
    if opt.default is None and not opt.required:
        kind = Optional[kind]  # noqa: UP045 - Typer reads the annotation at runtime
    metavar = opt.metavar or None
    if opt.positional:
        info: Any = typer.Argument(help=_help(opt), metavar=metavar, hidden=opt.hidden,
                                   show_default=opt.default is not None and not opt.required)
    else:
        info = typer.Option(*opt.names, help=_help(opt), metavar=metavar, hidden=opt.hidden,
                            show_default=opt.default not in (None, False))
    return Annotated[kind, info]


def _callback(command: Command, group: bool) -> Callable[..., None]:
    """A function whose signature is the command's options (Typer reads it), calling the command."""
    params: list[inspect.Parameter] = []
    keys: dict[str, str] = {}  # parameter name → the command function's keyword
    for opt in command.options:
        name = opt.key if opt.key not in keys.values() else f"{opt.key}_{len(keys)}"
        keys[name] = opt.key
        default = inspect.Parameter.empty if opt.required else opt.default
        params.append(inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default,
                                        annotation=_annotation(opt)))
    if group:
        params.insert(0, inspect.Parameter("ctx", inspect.Parameter.KEYWORD_ONLY, annotation=typer.Context))
    module, _, function = command.target.partition(":")

    def call(**given: Any) -> None:
        ctx = given.pop("ctx", None)
        if ctx is not None and ctx.invoked_subcommand is not None:
            return
        values: dict[str, Any] = {}
        for name, value in given.items():
            key = keys[name]
            if key in values:  # `extract A --path B`: both name the sessions to read
                value = [*(values[key] or []), *(value or [])] or None
            values[key] = value
        loaded = __import__(f"memcli.commands.{module}", fromlist=["run"])
        raise typer.Exit(getattr(loaded, function or "run")(**values))

    call.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    call.__annotations__ = {p.name: p.annotation for p in params}
    call.__name__ = command.words[-1].replace("-", "_")
    call.__doc__ = command.help
    return call


def _build() -> None:
    groups: dict[str, typer.Typer] = {}
    for command in COMMANDS:
        if len(command.words) == 1 and (not command.target or any(
                c.words[:1] == command.words and len(c.words) == 2 for c in COMMANDS)):
            sub = typer.Typer(name=command.words[0], help=command.help, short_help=command.summary,
                              no_args_is_help=not command.target, add_completion=False,
                              rich_markup_mode=None, invoke_without_command=bool(command.target))
            if command.target:
                sub.callback()(_callback(command, group=True))
            app.add_typer(sub)
            groups[command.words[0]] = sub
            continue
        parent = groups[command.words[0]] if len(command.words) == 2 else app
        parent.command(command.words[-1], cls=_Command, help=command.help, short_help=command.summary,
                       hidden=command.hidden)(_callback(command, group=False))


_build()


def main(argv: list[str] | None = None) -> None:
    sys.exit(run_guarded(lambda: app(args=argv, standalone_mode=False)))
