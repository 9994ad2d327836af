"""One front door (memcli.front): the Typer CLI and the lean routes read the same table of
commands and options, so an option is declared once and both parsers agree on it."""

from __future__ import annotations

import re

import pytest
import typer
from typer.testing import CliRunner

from memcli.cli import app
from memcli.front import COMMANDS, DRY_RUN, find
from memcli.lean import ROUTES


def _click(words: tuple[str, ...]) -> object:
    command = typer.main.get_command(app)
    for word in words:
        command = command.commands[word]  # type: ignore[attr-defined]
    return command


@pytest.mark.parametrize("route", ROUTES, ids=lambda r: " ".join(r.words))
def test_every_lean_option_is_the_cli_s_option_of_the_same_declaration(route) -> None:
    declared = find(route.words)
    params = {name: p for p in _click(route.words).params for name in p.opts}  # type: ignore[attr-defined]
    for name, opt in route.options.items():
        assert opt is declared.names()[name]  # the same object: one declaration
        assert name in params, f"{name} is lean-only"
        assert params[name].help.startswith(opt.help[:20].split("{")[0])


@pytest.mark.parametrize("command", [c for c in COMMANDS if c.target], ids=lambda c: " ".join(c.words))
def test_every_declared_option_is_on_the_cli(command) -> None:
    params = {name for p in _click(command.words).params for name in p.opts}  # type: ignore[attr-defined]
    declared = {n for o in command.options for n in o.names if not o.positional}
    assert declared <= params


def test_json_is_one_parameter_name_everywhere() -> None:
    keys = {o.key for c in COMMANDS for o in c.options if "--json" in o.names}
    assert keys == {"as_json"}


def test_dry_run_has_one_declaration_and_one_help_text() -> None:
    declared = [o for c in COMMANDS for o in c.options if "--dry-run" in o.names]
    assert len(declared) >= 5 and {o is DRY_RUN for o in declared} == {True}
    shown = {p.help for c in COMMANDS if any(o is DRY_RUN for o in c.options)
             for p in _click(c.words).params if "--dry-run" in p.opts}  # type: ignore[attr-defined]
    assert shown == {DRY_RUN.help}  # what each dry run prints is in its command's own help


@pytest.mark.parametrize("words", [("lint",), ("context",), ("gc-report",)])
def test_commands_with_formats_show_one_json_flag(words: tuple[str, ...]) -> None:
    out = CliRunner().invoke(app, [*words, "--help"], terminal_width=100).output
    assert "--json" in out
    shown = [p for p in _click(words).params if not p.hidden]  # type: ignore[attr-defined]
    assert [p for p in shown if "--json" in p.opts] and not [  # type: ignore[attr-defined]
        p for p in shown if "--format" in p.opts and re.search(r"\bjson\b\|?", p.help.split("(")[0])]
    assert "--format json" not in out and "|json" not in out and "json|" not in out, out


def test_root_help_fits_80_columns_with_whole_summaries() -> None:
    out = CliRunner().invoke(app, ["--help"]).output
    listed = out.split("Commands:")[1].splitlines()[1:]
    assert listed and all(len(line) <= 80 and not line.endswith("...") for line in listed), out
    assert all(re.match(r"  [a-z-]+ +\S", line) for line in listed), out  # one line each


@pytest.mark.parametrize(("argv", "usage", "absent"), [
    (["search", "--help"], "search [OPTIONS] QUERY", ["{query}", "<str>", "<list[str]>"]),
    (["extract", "--help"], "extract [OPTIONS] [PATHS]...", ["<list[Path]>", "<str>", "<path>"]),
    (["merge-driver", "--help"], "BASE OURS THEIRS PATH", ["{", "<path>"]),
])
def test_help_shows_metavars_not_python_types(argv: list[str], usage: str, absent: list[str]) -> None:
    out = CliRunner().invoke(app, argv, terminal_width=100).output
    assert usage in out
    for text in absent:
        assert text not in out, out
