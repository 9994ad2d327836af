"""memcli.lean's one parser over its table of routes: the values a shape gives the command, and
None for every shape it leaves to Typer (the routes' output is compared with Typer's in
tests/test_lean_routes.py and tests/lint/test_hook_entry.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from memcli.lean import ROUTES, Route, parse, route


def _parse(*words_and_args: str) -> dict | None:
    args = list(words_and_args)
    found: Route = next(r for r in ROUTES if tuple(args[: len(r.words)]) == r.words)
    return parse(found, args[len(found.words):])


@pytest.mark.parametrize(("argv", "values"), [
    (["lint", "--paths-only", "a.md", "b.md"], {"paths_only": True, "paths": [Path("a.md"), Path("b.md")]}),
    (["lint", "--paths-only"], {"paths_only": True, "paths": []}),
    (["lint", "--paths-only", "-w", "ws", "--", "-odd.md"],
     {"paths_only": True, "workspace": Path("ws"), "paths": [Path("-odd.md")]}),
    (["search", "wal", "-t", "knowledge", "--type=decision", "-n", "3", "--json"],
     {"query": "wal", "types": ["knowledge", "decision"], "limit": 3, "as_json": True}),
    (["context", "--budget=300", "-f", "json"], {"budget": 300, "fmt": "json"}),
    (["mcp", "--workspace=ws"], {"workspace": Path("ws")}),
    (["hooks", "session-start", "-a", "codex"], {"agent": "codex"}),
    (["merge-driver", "o", "a", "b", "memory/x.md"],
     {"base": Path("o"), "ours": Path("a"), "theirs": Path("b"), "path": "memory/x.md"}),
    (["extract", "--hook"], {}),  # the flag only chooses the route
])
def test_a_shape_gives_the_commands_values(argv: list[str], values: dict) -> None:
    assert _parse(*argv) == values


@pytest.mark.parametrize("argv", [
    ["lint", "a.md"],  # --paths-only is what the hook sends; anything else is the CLI's
    ["lint", "--paths-only", "--strict", "a.md"],
    ["lint", "--paths-only", "-x.md"],
    ["search"], ["search", "a", "b"], ["search", "--", "-q"], ["search", "wal", "-n5"],
    ["search", "wal", "--limit=x"], ["search", "wal", "--json", "--json"],
    ["context", "extra"], ["context", "--budget"], ["context", "--help"],
    ["mcp", "-w"], ["mcp", "ws"],
    ["merge-driver", "o", "a", "b"], ["merge-driver", "o", "a", "b", "p", "q"],
    ["merge-driver", "-o", "a", "b", "p"],
    ["extract"], ["extract", "--hook", "--hook"],
])
def test_every_other_shape_is_left_to_typer(argv: list[str]) -> None:
    assert _parse(*argv) is None
    assert route(argv) is None


def test_commands_without_a_route_go_to_typer() -> None:
    assert route(["status"]) is None and route(["hooks", "install"]) is None and route([]) is None
