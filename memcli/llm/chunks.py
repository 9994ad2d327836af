"""Asking the model one chunk at a time: `memcli extract`'s sessions and `memcli import`'s documents.

`ask` is one chunk's call and what its failure means for the run: an answer that never validated,
or a chunk too long for the window, fails that chunk alone (it is not recorded, so the next run
asks again); any other model error (an unreachable server, a rejected key, a 429 storm) would fail
every other chunk too, so no further chunk starts. Each call's usage is charged to the run's
budget as it returns. `ask_all` runs a run's chunks on the pool's daemon threads
(memcli.llm.pool), adding each outcome to the run's tally and showing it as it comes.

    def one(work):                                   # on a pool thread; returns the caller's result
        try:
            items, usage = chunks.ask(gateway, messages, ExtractedItems, gate, max_tokens=...)
        except chunks.ChunkFailed as failed:
            return Result(work, failed.status, usage=failed.usage, error=str(failed))
        with gate.writing() as allowed:              # write only while the gate is open
            ...
    chunks.ask_all(todo.work, one, workers, gate, tally, shown)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from memcli.errors import Terminated
from memcli.llm.errors import InvalidOutput, LLMError, RequestRefused
from memcli.llm.pool import Gate, run_all

if TYPE_CHECKING:
    from memcli.llm.usage import CallUsage
    from memcli.progress import Reporter

M = TypeVar("M")
T = TypeVar("T")
R = TypeVar("R")


class ChunkFailed(Exception):
    """One chunk got no usable answer. `status`: "failed" (this chunk alone) or "error" (the run's
    other chunks would fail too; none further starts). Never leaves the chunk's worker."""

    def __init__(self, status: str, message: str, usage: CallUsage | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.usage = usage


class Structured(Protocol):
    """What `ask` needs of a gateway (memcli.llm.Gateway, or AgentGateway: a coding agent)."""

    def structured(self, messages: list[dict[str, Any]], schema: type[M], *,
                   max_tokens: int | None = None) -> tuple[M, CallUsage]: ...


class Tally(Protocol):
    """What `ask_all` adds each chunk's result to (memcli.extract.report.Counts and its kin)."""

    stopped: str | None
    interrupted: bool
    terminated: bool
    calls: int
    status: dict[str, int]

    @property
    def usage(self) -> CallUsage: ...

    def add(self, result: Any) -> None: ...


def ask(gateway: Structured, messages: list[dict[str, Any]], schema: type[M], gate: Gate, *,
        max_tokens: int) -> tuple[M, CallUsage]:
    """One chunk's answer and usage, charged to the run's budget; else ChunkFailed."""
    try:
        items, usage = gateway.structured(messages, schema, max_tokens=max_tokens)
    except InvalidOutput as exc:
        gate.charge(exc.usage)
        raise ChunkFailed("failed", str(exc), exc.usage) from None
    except LLMError as exc:
        if isinstance(exc, RequestRefused) and exc.context_window:
            raise ChunkFailed("failed", str(exc)) from None  # this chunk alone is too long
        gate.abort.set()  # unreachable server, rejected key, 429 storm: every other chunk would fail too
        raise ChunkFailed("error", str(exc)) from None
    gate.charge(usage)
    return items, usage


def ask_all(jobs: Sequence[T], one: Callable[[T], R], workers: int, gate: Gate, tally: Tally,
            shown: Reporter) -> None:
    """`one(job)` for every job on at most `workers` daemon threads, each result added to the tally
    and shown as it comes. Ctrl-C ends it: what was written is kept, the rest waits for the next
    run (the tally says it was interrupted)."""
    try:
        for result in run_all(list(jobs), one, workers, gate):
            tally.add(result)
            tally.stopped = gate.stopped
            shown.update(tally.usage, call=tally.calls, done=sum(tally.status.values()))
    except KeyboardInterrupt as exc:
        gate.close()  # (already closed when Ctrl-C came while waiting; not when it came in between)
        tally.interrupted = True
        tally.terminated = isinstance(exc, Terminated)
