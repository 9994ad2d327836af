"""The `memcli` executable: the argument shapes memcli.lean knows run without Typer, everything
else through the CLI (memcli.cli)."""

from __future__ import annotations

import atexit
import os
import sys
from typing import NoReturn

from memcli.lean import route


def main(argv: list[str] | None = None) -> None:
    command = route(sys.argv[1:] if argv is None else argv)
    if command is not None:
        leave(command())
    from memcli.cli import main as cli_main  # here: only shapes the lean routes leave load Typer

    try:
        cli_main(argv)
    except SystemExit as done:
        leave(done.code)


def leave(code: int | str | None) -> NoReturn:
    """Exit with `code`. Once litellm is loaded, without the interpreter's teardown: freeing its
    thousands of modules and objects kept the terminal silent for 1.3–1.7 s after a model
    command's summary (bench/exit_bench.py). What `sys.exit` does first still happens: the exit
    handlers run (temporary folders, logging) and the output is flushed; every workspace write is
    complete by then (atomic, memcli.atomicio)."""
    if "litellm" not in sys.modules or not isinstance(code, int | None):
        sys.exit(code)
    atexit._run_exitfuncs()  # CPython's own exit step; memcli runs on CPython
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe (`memcli … | head`): nothing more to say
            pass
    os._exit(code or 0)
