"""What a model run shows while it works: one-line notes, and the Reporter every model run feeds.

Model commands have seconds of work before their first result (reading sessions, loading the
model library); `note` says what is happening at once, on stderr and only when it is a terminal,
so piped output, logs and `--json` stay exactly as before.

A model run (consolidate, extract, import, and any other driver of the model) reports through one
`Reporter`; see its docstring for the calls. Where it goes is the `--progress` mode: `text` a live
line on stderr, `json` one JSON object per line on stderr (the final `--json` document on stdout
is untouched), `off` nothing, `auto` (the default) `text` when stderr is a terminal and the command
prints no `--json`, else `off`.
"""

from __future__ import annotations

import dataclasses
import json
import sys
import time
from typing import Any, TextIO

from memcli.errors import UsageError
from memcli.values import frozen

MODES = ("auto", "text", "json", "off")


def check_mode(mode: str) -> str:
    """`--progress MODE`, checked before any work starts."""
    if mode not in MODES:
        raise UsageError(f"--progress must be one of {', '.join(MODES)}, not {mode!r}")
    return mode


def note(message: str) -> None:
    stream = sys.stderr
    if stream is not None and stream.isatty():
        stream.write(message + "\n")
        stream.flush()


@frozen
class Event:
    """Where a model run stands: the fields a Reporter shows (each `--progress json` line holds them)."""

    command: str  # consolidate | extract | import | ...
    phase: str = ""  # consolidate: integration | gc | repair; extract / import: their own name
    call: int = 0  # model calls (or, for an agent driver, tool calls) so far
    limit: int | None = None  # the most calls the run may make; None: no such bound
    tool: str | None = None  # the tool the model used last
    done: int = 0  # work disposed of: staging items with a disposition, chunks answered
    total: int = 0  # all the work: done + left
    unit: str = "items"  # what done / total count
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = None  # None: the price is not known

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    @property
    def left(self) -> int:
        return max(self.total - self.done, 0)


class Reporter:
    """The one progress interface of model runs. A driver makes one with `reporter(mode, command)`
    and calls, in this order:

        rep.update(phase="integration", limit=60, total=5)   # whenever a field changes:
        rep.update(call=1, prompt_tokens=..., completion_tokens=..., cost_usd=...)  # after a call
        rep.update(tool="dispose", done=3)                    # after a tool call
        rep.say("model x is unknown: assuming a context window of 8192 tokens")  # a one-line note
        rep.close()                                           # once, also when the run failed

    `update` takes any Event field by name and shows the new state; fields not given keep their
    value, so a driver passes only what changed (tokens and cost are totals so far, not deltas).
    `usage` is a shortcut for the token fields from anything with prompt_tokens /
    completion_tokens / cost_usd (memcli.llm.CallUsage). `say` is for what a person should know
    about the run, not its state (an assumed limit); a stop cause belongs in the run's own result.
    A Reporter never raises on a closed or broken stream, and with mode `off` does nothing."""

    def __init__(self, event: Event, out: TextIO | None = None) -> None:
        self.event = event
        self.started = time.monotonic()
        self.closed = False
        self._out = out

    def update(self, usage: Any = None, **fields: Any) -> Event:
        if usage is not None:
            fields.update(prompt_tokens=usage.prompt_tokens, completion_tokens=usage.completion_tokens,
                          cost_usd=usage.cost_usd)
        self.event = dataclasses.replace(self.event, **fields)
        if not self.closed:
            self._show()
        return self.event

    def say(self, message: str) -> None:
        if not self.closed:
            self._say(message)

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self._end()

    def __enter__(self) -> Reporter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def elapsed(self) -> float:
        return time.monotonic() - self.started

    # what the modes differ in; the base class is `off`
    def _show(self) -> None:
        pass

    def _say(self, message: str) -> None:
        pass

    def _end(self) -> None:
        pass


class JsonReporter(Reporter):
    """One JSON object per line: {"event": "progress" | "note" | "end", ...Event fields, "elapsed_s"}."""

    def _write(self, kind: str, **extra: Any) -> None:
        row = {"event": kind, **dataclasses.asdict(self.event), "left": self.event.left,
               "tokens": self.event.tokens, "elapsed_s": round(self.elapsed, 3), **extra}
        try:
            stream = self._out or sys.stderr
            stream.write(json.dumps(row, ensure_ascii=False) + "\n")
            stream.flush()
        except (OSError, ValueError):  # a closed pipe ends the reporting, never the run
            self.closed = True

    def _show(self) -> None:
        self._write("progress")

    def _say(self, message: str) -> None:
        self._write("note", message=message)

    def _end(self) -> None:
        self._write("end")


def describe(e: Event) -> str:
    """The state in words: `integration · call 7/60 · dispose · 12,345 tokens · $0.0123`."""
    parts = [e.phase] if e.phase else []
    if e.call or e.limit:
        parts.append(f"call {e.call}/{e.limit}" if e.limit else f"{e.call} calls")
    if e.tool:
        parts.append(e.tool)
    parts.append(f"{e.tokens:,} tokens")
    if e.cost_usd is not None:
        parts.append(f"${e.cost_usd:.4f}")
    return " · ".join(parts)


class TextReporter(Reporter):
    """At a terminal a live line on stderr (rich): the work done, the time so far, the state in
    words. Elsewhere (a log asked for `--progress text`) one plain line per model call."""

    def __init__(self, event: Event, out: TextIO | None = None) -> None:
        super().__init__(event, out)
        from rich.console import Console  # here: only a run that shows progress as text draws it
        from rich.progress import Progress, TextColumn, TimeElapsedColumn
        from rich.table import Column

        self._console = Console(file=out, stderr=out is None)
        self._live = self._console.is_terminal
        self._last_call = -1
        # a narrow terminal cuts the words at the end, never the counts or the time
        words = Column(no_wrap=True, overflow="ellipsis", ratio=1)
        columns = (TextColumn("{task.fields[head]}"), TimeElapsedColumn(table_column=Column(min_width=7)),
                   TextColumn("{task.fields[state]}", table_column=words))
        self._bar = Progress(*columns, console=self._console, disable=not self._live, expand=True)
        self._task = self._bar.add_task(event.command, head=_head(event), state=describe(event))
        self._bar.start()

    def _show(self) -> None:
        e = self.event
        if self._live:
            self._bar.update(self._task, head=_head(e), state=describe(e))
        elif e.call != self._last_call:
            self._last_call = e.call
            self._say(f"{_head(e)}  {describe(e)}")

    def _say(self, message: str) -> None:
        self._console.print(message, markup=False, highlight=False, soft_wrap=True)

    def _end(self) -> None:
        if self._live:
            self._show()
        else:
            self._say(f"{_head(self.event)}  {describe(self.event)}")
        self._bar.stop()


def _head(e: Event) -> str:
    return f"{e.command} {e.done}/{e.total} {e.unit}" if e.total else e.command


def reporter(mode: str, command: str, *, machine_output: bool = False, **fields: Any) -> Reporter:
    """The Reporter for `--progress MODE` (`machine_output`: the command prints `--json`, which
    keeps `auto` quiet even at a terminal). `fields`: the Event's first values."""
    if check_mode(mode) == "auto":
        stream = sys.stderr
        mode = "text" if stream is not None and stream.isatty() and not machine_output else "off"
    event = Event(command, **fields)
    if mode == "json":
        return JsonReporter(event)
    if mode == "text":
        return TextReporter(event)
    return Reporter(event)
