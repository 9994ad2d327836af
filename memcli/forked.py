"""Work shared out to forked helpers (a large lint, a large record-store build): a forked child
starts at once with everything imported and the parent's data in memory, computes its share, and
hands the result back as bytes through a pipe: all at once (`start`, `collect`), or frame by frame
as it goes (`stream`, `frames`), so the parent can store one part while the helpers compute the
next. Whoever calls decides how the bytes are made and read.
"""

from __future__ import annotations

import contextlib
import gc
import os
import struct
import threading
from collections.abc import Callable, Iterator
from typing import BinaryIO

_LENGTH = struct.Struct("<Q")  # each frame `stream` sends starts with its length
# The read ends of the helpers' pipes this process holds: a helper forked later closes them, else
# it would hold an earlier helper's pipe open, and that helper would block on it once the parent
# stopped reading, instead of failing on a closed pipe.
_reading: set[int] = set()


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

    def body(out: BinaryIO) -> None:
        out.write(compute())

    return _fork(body)


def collect(pid: int, read: int) -> bytes | None:
    """What the helper `start` gave wrote, once it has exited; None when it failed."""
    _reading.discard(read)
    try:
        with os.fdopen(read, "rb") as fh:
            data = fh.read()
    finally:
        _, status = os.waitpid(pid, 0)
    return data if status == 0 else None


def stream(produce: Callable[[Callable[[bytes], None]], None]) -> tuple[int, int] | None:
    """Fork a helper that runs `produce(send)`, where each `send(frame)` hands one frame to the
    parent at once (read them with `frames`), so the parent can use a frame while the helper
    computes the next; (pid, read end of the pipe), or None when no helper can be started."""

    def body(out: BinaryIO) -> None:
        def send(frame: bytes) -> None:
            out.write(_LENGTH.pack(len(frame)))
            out.write(frame)
            out.flush()

        produce(send)

    return _fork(body)


def _fork(body: Callable[[BinaryIO], None]) -> tuple[int, int] | None:
    try:
        read, write = os.pipe()
    except OSError:
        return None
    _widen(write)
    try:
        pid = os.fork()
    except OSError:
        os.close(read)
        os.close(write)
        return None
    if pid == 0:  # the helper: compute, hand the result over, and leave without cleanup
        code = 1
        try:
            for fd in (read, *_reading):
                os.close(fd)
            gc.freeze()  # the parent's objects are never garbage here: no collection walks them
            # A helper lives for one share of work and exits: what it drops is freed by reference
            # counting, and collections would only walk what it keeps (caches grow with the
            # share), ~5% of a large build's time.
            gc.disable()
            with os.fdopen(write, "wb") as out:
                body(out)
            code = 0
        finally:
            os._exit(code)
    os.close(write)
    _reading.add(read)
    return pid, read


def _widen(fd: int) -> None:
    """A pipe holding a whole batch (Linux: up to pipe-max-size, 1 MiB by default): a helper then
    writes a frame in one go instead of waking the parent every 64 KiB."""
    import fcntl  # here: POSIX only, where helpers are forked

    with contextlib.suppress(OSError, AttributeError):
        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, 1 << 20)


def _close(read: int) -> None:
    _reading.discard(read)
    os.close(read)


def frames(helpers: list[tuple[int, int]]) -> Iterator[tuple[int, bytes | None]]:
    """(helper's index in `helpers`, frame) for each whole frame as it arrives from any helper
    `stream` started, and (index, None) once a helper has exited having failed (the frames it sent
    before stand). Stopping early closes the pipes (a helper still writing then fails) and reaps
    every helper, so none is left behind."""
    import selectors  # here: only a build shared out to helpers waits on several pipes

    buffers = {read: bytearray() for _, read in helpers}
    index = {read: i for i, (_, read) in enumerate(helpers)}
    open_reads = set(buffers)
    with selectors.DefaultSelector() as selector:
        for read in open_reads:
            selector.register(read, selectors.EVENT_READ)
        try:
            while open_reads:
                for key, _ in selector.select():
                    read = int(key.fd)
                    chunk = os.read(read, 1 << 20)
                    buffer = buffers[read]
                    if chunk:
                        buffer += chunk
                        while len(buffer) >= _LENGTH.size:
                            (size,) = _LENGTH.unpack_from(buffer)
                            if len(buffer) < _LENGTH.size + size:
                                break
                            frame = bytes(buffer[_LENGTH.size : _LENGTH.size + size])
                            del buffer[: _LENGTH.size + size]
                            yield index[read], frame
                        continue
                    selector.unregister(read)
                    open_reads.discard(read)
                    _close(read)
                    _, status = os.waitpid(helpers[index[read]][0], 0)
                    if status != 0 or buffer:  # failed, or cut off inside a frame
                        yield index[read], None
        finally:
            for read in open_reads:  # stopped early: a helper still writing gets EPIPE and exits
                _close(read)
                os.waitpid(helpers[index[read]][0], 0)
