"""The one error boundary: memcli errors → `Error: ...` and their exit code; a bug → exit 3 with
one line on stderr and the traceback (with versions) in a log file."""

from __future__ import annotations

import contextlib
import importlib
import os
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from memcli.errors import EXIT_BUG, EXIT_INTERRUPTED, EXIT_TERMINATED, EXIT_USAGE, MemcliError, Terminated


def crash_log_dir() -> Path:
    override = os.environ.get("MEMCLI_STATE_DIR")
    if override:
        return Path(override) / "logs"
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "memcli" / "logs"


def _write_crash_log(exc: BaseException) -> Path | None:
    # here: every command passes through this module; only a crash needs them
    import datetime as dt
    import platform
    import traceback

    from memcli import __version__

    stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%S")
    path = crash_log_dir() / f"crash-{stamp}-{os.getpid()}.log"
    text = (
        f"memcli {__version__}, Python {platform.python_version()}, {platform.platform()}\n"
        f"argv: {sys.argv!r}\n\n" + "".join(traceback.format_exception(exc))
    )
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    except OSError:
        return None
    return path


def _click_exceptions() -> tuple[tuple[type[Exception], ...], tuple[type[Any], ...],
                                 tuple[type[Exception], ...]]:
    """(Exit, ClickException, Abort) classes of the click that Typer really uses: recent Typer
    vendors its own copy (`typer._click`), older Typer uses the `click` package; accept both."""
    if "typer" not in sys.modules:  # a lean entry (memcli.entry): nothing can raise them
        return (), (), ()

    import typer  # here: the lean routes never load Typer

    exits: list[type[Exception]] = [typer.Exit]
    errors: list[type[Any]] = []  # click's ClickException, found at run time: show(), exit_code
    aborts: list[type[Exception]] = [typer.Abort]
    for name in ("typer._click.exceptions", "click.exceptions"):
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        for found, attr in ((exits, "Exit"), (errors, "ClickException"), (aborts, "Abort")):
            if isinstance(getattr(module, attr, None), type):
                found.append(getattr(module, attr))
        break  # the vendored copy, when there is one, is the only one Typer raises (and click costs 30 ms)
    return tuple(exits), tuple(errors), tuple(aborts)


def run_guarded(entry: Callable[[], int | None]) -> int:
    exits, click_errors, aborts = _click_exceptions()
    try:
        code = entry()
        return int(code or 0)
    except MemcliError as exc:
        print(f"Error: {exc}", file=sys.stderr)
        return exc.exit_code
    except exits as exc:
        return int(getattr(exc, "exit_code", 0) or 0)
    except click_errors as exc:  # bad option, missing argument: a usage error
        exc.show()
        return EXIT_USAGE if exc.exit_code == 2 else exc.exit_code
    except aborts:
        print("Aborted.", file=sys.stderr)
        return EXIT_INTERRUPTED
    except KeyboardInterrupt:
        print("Interrupted.", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        return 0
    except Exception as exc:  # the boundary for bugs: never turned into a friendly user error
        log = _write_crash_log(exc)
        where = f"; details in {log}" if log else ""
        print(f"memcli: internal error ({type(exc).__name__}: {exc}){where}", file=sys.stderr)
        return EXIT_BUG


@contextlib.contextmanager
def first_signal_raises(signum: int, error: type[BaseException]) -> Iterator[None]:
    """In the main thread, the first `signum` raises `error` there; later ones are ignored from then
    on, so neither the short clean-up on the way out (recording what was kept, letting go of a lock)
    nor the exit after it can be broken into a traceback. Without that signal the handler before is
    put back (the default, where it was set outside Python and cannot be). Elsewhere, nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    import signal  # here: its enums cost ~1 ms, and only the commands that stop cleanly set a handler

    previous = signal.getsignal(signum)
    raised = False

    def first(got: int, frame: object) -> None:
        nonlocal raised
        raised = True
        signal.signal(got, signal.SIG_IGN)
        raise error

    signal.signal(signum, first)
    try:
        yield
    finally:
        if not raised:  # after the signal the command is ending: it stays deaf to the next one
            signal.signal(signum, previous if previous is not None else signal.SIG_DFL)


def one_interrupt() -> contextlib.AbstractContextManager[None]:
    """Ctrl-C during a run that records what it kept (extract, import): the first raises
    KeyboardInterrupt, later ones are ignored (first_signal_raises)."""
    import signal  # here: as in first_signal_raises

    return first_signal_raises(signal.SIGINT, KeyboardInterrupt)


def terminable(command: Callable[[], int]) -> int:
    """`command()`, where SIGTERM (`timeout` ending a cron job, a scheduler or a CI runner stopping
    it) raises Terminated, a KeyboardInterrupt, in the main thread: the command stops as on Ctrl-C,
    so what it holds is let go on the way out (an atomic write's temp file removed, the agent it
    runs as the model ended, the consolidation lock released, its scratch folder dropped, the run
    recorded) instead of the process vanishing mid-write; then "Terminated." and exit 143. Later
    SIGTERMs are ignored while it stops. For the commands that write as they run (consolidate,
    extract, import); a server keeps the default and just ends."""
    import signal  # here: as in first_signal_raises

    with first_signal_raises(signal.SIGTERM, Terminated):
        try:
            return command()
        except Terminated:
            print("Terminated.", file=sys.stderr)
            return EXIT_TERMINATED
