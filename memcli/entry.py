"""The `memcli` executable: the merge driver, the commit hook's lint and the agents' capture hook
without Typer, everything else through the CLI.

git runs `memcli merge-driver` once per file both branches changed, so its start-up is paid per
file: it skips importing Typer and building the command tree (about a third of its time). The
pre-commit hook runs `memcli lint --paths-only …` on every commit: the same reasoning
(memcli/lint_hook.py), as for `memcli context` and `memcli search`, which agents run at every
session start and tool call, and `memcli skills sync`, run after every consolidation
(memcli/lean.py). An agent waits for `memcli extract --hook` at every session end: it only reads
stdin and starts a detached worker (memcli/hooks/payload.py). An agent gives `memcli mcp` about a
second to answer its handshake, most of it spent importing the MCP SDK: Typer would add a tenth of
a second more (memcli/mcpserver/server.py). Every session start runs `memcli hooks session-start`,
and the agent waits for its context.
"""

from __future__ import annotations

import sys

WORKSPACE = {"-w": "workspace", "--workspace": "workspace"}
AGENT = {"-a": "agent", "--agent": "agent"}


def _options(args: list[str], known: dict[str, str]) -> dict[str, str] | None:
    """The options of a lean route, each `known` flag at most once (`--flag VALUE`,
    `--flag=VALUE`); None for anything else: --help and mistakes go to the CLI, which explains
    them."""
    out: dict[str, str] = {}
    rest = list(args)
    while rest:
        flag, eq, value = rest.pop(0).partition("=")
        key = known.get(flag)
        if key is None or key in out or (eq and not flag.startswith("--")):
            return None
        if not eq:
            if not rest:
                return None
            value = rest.pop(0)
        out[key] = value
    return out


def _no_pydantic_plugins() -> None:
    """Looking for pydantic plugins (validation tracers) reads every installed distribution's entry
    points, ~10% of a lean route; memcli's models have nothing for them to trace. A user's explicit
    setting still wins."""
    import os

    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["merge-driver"] and len(args) == 5 and not any(a.startswith("-") for a in args[1:]):
        from memcli.merge.driver import main as driver

        sys.exit(driver(args[1:]))
    if args[:1] == ["lint"]:
        from memcli import lint_hook

        parsed = lint_hook.parse(args[1:])
        if parsed is not None:
            from memcli.boundary import run_guarded

            _no_pydantic_plugins()
            sys.exit(run_guarded(lambda: lint_hook.run(*parsed)))
    if args[:1] == ["mcp"] and (opts := _options(args[1:], WORKSPACE)) is not None:
        from memcli.boundary import run_guarded

        _no_pydantic_plugins()
        from memcli.mcpserver.server import main as serve

        sys.exit(run_guarded(lambda: serve(opts.get("workspace"))))
    if args[:2] == ["hooks", "session-start"] and (opts := _options(args[2:], WORKSPACE | AGENT)) is not None:
        from pathlib import Path

        _no_pydantic_plugins()
        from memcli.hooks.start import session_start

        workspace = opts.get("workspace")
        sys.exit(session_start(opts.get("agent"), getattr(sys.stdin, "buffer", None),
                               Path(workspace) if workspace is not None else None))
    if args[:1] in (["context"], ["search"]) or args[:2] == ["skills", "sync"]:
        from memcli import lean

        command = lean.parse(args)
        if command is not None:
            from memcli.boundary import run_guarded

            _no_pydantic_plugins()
            sys.exit(run_guarded(command))
    if args == ["extract", "--hook"]:
        from memcli.hooks.payload import extract_hook

        sys.exit(extract_hook(getattr(sys.stdin, "buffer", None)))
    from memcli.cli import main as cli_main

    cli_main(argv)

