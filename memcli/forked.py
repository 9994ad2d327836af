"""Work shared out to forked helpers (a large lint, a large record-store build): a forked child
starts at once with everything imported and the parent's data in memory, computes its share, and
hands the result back as bytes through a pipe. Whoever calls decides how the bytes are made and read.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable


def cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def can_fork() -> bool:
    """A forked child gets only the calling thread; locks other threads held would stay locked."""
    return hasattr(os, "fork") and threading.active_count() == 1


def start(compute: Callable[[], bytes]) -> tuple[int, int] | None:
    """Fork a helper that runs `compute` and writes what it returns to a pipe; (pid, read end of
    the pipe), or None when no helper can be started."""
    try:
        read, write = os.pipe()
    except OSError:
        return None
    try:
        pid = os.fork()
    except OSError:
        os.close(read)
        os.close(write)
        return None
    if pid == 0:  # the helper: compute, hand the result over, and leave without cleanup
        code = 1
        try:
            os.close(read)
            data = compute()
            with os.fdopen(write, "wb") as out:
                out.write(data)
            code = 0
        finally:
            os._exit(code)
    os.close(write)
    return pid, read


def collect(pid: int, read: int) -> bytes | None:
    """What the helper `start` gave wrote, once it has exited; None when it failed."""
    try:
        with os.fdopen(read, "rb") as fh:
            data = fh.read()
    finally:
        _, status = os.waitpid(pid, 0)
    return data if status == 0 else None
