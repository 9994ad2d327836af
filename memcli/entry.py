"""The `memcli` executable: the merge driver, the commit hook's lint and the agents' capture hook
without Typer, everything else through the CLI.

git runs `memcli merge-driver` once per file both branches changed, so its start-up is paid per
file: it skips importing Typer and building the command tree (about a third of its time). The
pre-commit hook runs `memcli lint --paths-only …` on every commit: the same reasoning
(memcli/lint_hook.py). An agent waits for `memcli extract --hook` at every session end: it only
reads stdin and starts a detached worker (memcli/agents/hookio.py). An agent gives `memcli mcp`
about a second to answer its handshake, most of it spent importing the MCP SDK: Typer would add
a tenth of a second more (memcli/mcpserver/server.py).
"""

from __future__ import annotations

import sys


def _mcp_workspace(args: list[str]) -> str | None | bool:
    """`mcp [-w|--workspace PATH]`: the folder asked for (None: found from here), or False for
    anything else (--help and mistakes go to the CLI, which explains them)."""
    if not args:
        return None
    if len(args) == 2 and args[0] in ("-w", "--workspace"):
        return args[1]
    if len(args) == 1 and args[0].startswith("--workspace="):
        return args[0].split("=", 1)[1]
    return False


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["merge-driver"] and len(args) == 5 and not any(a.startswith("-") for a in args[1:]):
        from memcli.merge.driver import main as driver

        sys.exit(driver(args[1:]))
    if args[:1] == ["lint"]:
        from memcli import lint_hook

        parsed = lint_hook.parse(args[1:])
        if parsed is not None:
            import os

            from memcli.boundary import run_guarded

            # Finding pydantic plugins (validation tracers) means reading every installed
            # distribution's entry points, ~10% of this path; memcli's own models have nothing
            # for them to trace. A user's explicit setting still wins.
            os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")

            sys.exit(run_guarded(lambda: lint_hook.run(*parsed)))
    if args[:1] == ["mcp"] and (workspace := _mcp_workspace(args[1:])) is not False:
        import os

        from memcli.boundary import run_guarded

        # As for lint: looking for pydantic plugins reads every installed distribution's entry
        # points, ~8% of the SDK's import, and no model here has anything for them to trace.
        os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
        from memcli.mcpserver.server import main as serve

        sys.exit(run_guarded(lambda: serve(workspace)))  # type: ignore[arg-type]
    if args == ["extract", "--hook"]:
        from memcli.agents.hookio import extract_hook

        sys.exit(extract_hook(getattr(sys.stdin, "buffer", None)))
    from memcli.cli import main as cli_main

    cli_main(argv)

