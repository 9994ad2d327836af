"""The `memcli` executable: the merge driver, the commit hook's lint and the agents' capture hook
without Typer, everything else through the CLI.

git runs `memcli merge-driver` once per file both branches changed, so its start-up is paid per
file: it skips importing Typer and building the command tree (about a third of its time). The
pre-commit hook runs `memcli lint --paths-only …` on every commit: the same reasoning
(memcli/lint_hook.py), as for `memcli context` and `memcli search`, which agents run at every
session start and tool call (memcli/lean.py). An agent waits for `memcli extract --hook` at every
session end: it only reads stdin and starts a detached worker (memcli/agents/hookio.py).
"""

from __future__ import annotations

import sys


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
    if args[:1] in (["context"], ["search"]):
        from memcli import lean

        command = lean.parse(args)
        if command is not None:
            import os

            from memcli.boundary import run_guarded

            os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")  # as for the commit path
            sys.exit(run_guarded(command))
    if args == ["extract", "--hook"]:
        from memcli.agents.hookio import extract_hook

        sys.exit(extract_hook(getattr(sys.stdin, "buffer", None)))
    from memcli.cli import main as cli_main

    cli_main(argv)

