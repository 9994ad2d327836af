"""A run's chunks (extract's, import's: memcli.llm.chunks) on a few daemon threads, so that Ctrl-C
stops at once.

A ThreadPoolExecutor's workers are joined when the interpreter exits: after Ctrl-C the process
waited, silent, for every request in flight (up to the request timeout), and a second Ctrl-C broke
that join with a traceback. Daemon workers are not joined; the requests they wait on are abandoned.
The `Gate` makes abandoning them safe: a worker writes results (staging file, ledger line) only while
holding it, and once it is closed nothing more is written, so what was kept is exactly what was
recorded, and the abandoned chunks are extracted by the next run.
"""

from __future__ import annotations

import contextlib
import queue
import threading
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")


class Gate:
    """`stop_at(usage) -> reason | None` (memcli.llm.spend.Budget.reached): a worker charges each
    call's usage as it returns, and once the run's total reaches the budget no further chunk
    starts (the calls already in flight, at most one per worker, still finish)."""

    def __init__(self, stop_at: Callable[[Any], str | None] | None = None) -> None:
        self.abort = threading.Event()  # start no further chunk (Ctrl-C, a fatal error, the budget)
        self._lock = threading.Lock()
        self._closed = False
        self._stop_at = stop_at
        self._used: Any = None
        self.stopped: str | None = None  # why the budget (or a full staging) stopped the run

    def charge(self, usage: Any) -> None:
        if self._stop_at is None or usage is None:
            return
        with self._lock:
            self._used = usage if self._used is None else self._used + usage
            why = self._stop_at(self._used)
            if why and self.stopped is None:
                self.stopped = why
                self.abort.set()

    def stop(self, why: str) -> None:
        """Start no further chunk, for `why` (staging is full: memcli.extract.room). Called while
        `writing`, so without the lock; the first reason said stays."""
        if self.stopped is None:
            self.stopped = why
        self.abort.set()

    @contextlib.contextmanager
    def writing(self) -> Iterator[bool]:
        """Hold while writing one chunk's results; yields False once the run was interrupted."""
        with self._lock:
            yield not self._closed

    def close(self) -> None:
        """Wait for a write in progress (milliseconds), then allow none."""
        self.abort.set()
        with self._lock:
            self._closed = True


def run_all(jobs: list[T], work: Callable[[T], R], workers: int, gate: Gate) -> Iterator[R]:
    """Yield `work(job)` for every job, in completion order, on at most `workers` daemon threads.
    Ctrl-C (KeyboardInterrupt here) closes the gate and propagates."""
    todo: queue.SimpleQueue[T] = queue.SimpleQueue()
    for job in jobs:
        todo.put(job)
    done: queue.SimpleQueue[tuple[bool, R | BaseException]] = queue.SimpleQueue()

    def worker() -> None:
        while True:
            try:
                job = todo.get_nowait()
            except queue.Empty:
                return
            try:
                done.put((True, work(job)))
            except BaseException as exc:  # a bug in a worker: re-raised in the caller's thread
                done.put((False, exc))
                return

    for i in range(min(workers, len(jobs))):
        threading.Thread(target=worker, name=f"extract-{i}", daemon=True).start()
    try:
        for _ in jobs:
            ok, value = done.get()
            if not ok:
                raise value  # type: ignore[misc]
            yield value  # type: ignore[misc]
    except BaseException:
        gate.close()
        raise


