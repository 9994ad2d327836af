"""The `memcli` executable: the argument shapes memcli.lean knows run without Typer, everything
else through the CLI (memcli.cli)."""

from __future__ import annotations

import sys

from memcli.lean import route


def main(argv: list[str] | None = None) -> None:
    command = route(sys.argv[1:] if argv is None else argv)
    if command is not None:
        sys.exit(command())
    from memcli.cli import main as cli_main  # here: only shapes the lean routes leave load Typer

    cli_main(argv)
