"""The no-progress stop: a model run ends after a few turns in a row that got nowhere, with the
true cause in one line, instead of spending every call it is allowed (`consolidate.max_iterations`)
and blaming whatever filled the window last.

A turn gets somewhere when one of its tool calls succeeds with something new: a disposition, a
write, a finished phase, a read of what it had not read. It gets nowhere when it is text only
(nothing happens through text), when every call fails (a refused `finish_phase`, a write the
rules refuse, a path that is no record), or when every call repeats an earlier one to the same
result. After `limit` such turns in a row, `turn` answers why, in words a person can act on:

    the model never called a tool: does openai/x support tool calling?
    finish_phase refused 3 times: i1, i2 have no disposition
    the same invalid call 3 times: memory_read memory/decisions/nope.md: no record at ...

A driver reports each model turn (the chat loop of memcli.consolidate.agent), or each tool call
as a turn of its own (a driver that sees only the calls an agent makes over MCP).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from memcli.tools.result import ToolResult
from memcli.values import frozen

_SHOWN = 160  # characters of a tool's message in a cause


@frozen
class _Call:
    name: str
    key: str  # name and arguments, canonical
    ok: bool
    error: str | None
    message: str
    target: str  # what the call was about (a path, item ids), for the cause
    items: tuple[str, ...] = ()  # finish_phase refused: the ids without a disposition


@frozen
class _Turn:
    calls: tuple[_Call, ...] = ()
    printed: str | None = None  # text-only turn: the tool call it wrote as text instead of making it


def _key(name: str, arguments: Any) -> str:
    try:
        args = json.dumps(arguments, sort_keys=True, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        args = repr(arguments)
    return f"{name}\0{args}"


def _target(arguments: Any) -> str:
    if not isinstance(arguments, dict):
        return ""
    for key in ("path", "query", "items"):
        value = arguments.get(key)
        if value:
            return ", ".join(map(str, value)) if isinstance(value, list) else str(value)
    return ""


def _message(result: ToolResult) -> str:
    errors = [v for v in result.violations if v.is_error]
    text = " ".join((errors[0].message if errors else result.message).split())
    return text if len(text) <= _SHOWN else text[: _SHOWN - 1] + "…"


def _is(n: int, one: str, many: str) -> str:
    return one if n == 1 else many


@dataclass
class NoProgress:
    """Counts the turns in a row that got nowhere; `limit` 0 never stops."""

    limit: int
    model: str
    calls_made: int = 0  # tool calls the model made in the whole run
    _streak: list[_Turn] = field(default_factory=list)
    _seen: set[str] = field(default_factory=set)  # successful calls with their results, hashed

    def text_turn(self, printed: str | None = None) -> str | None:
        """A turn with no tool call (`printed`: a tool it wrote a call to as text). The cause when
        this turn is the limit-th in a row that got nowhere, else None."""
        self._streak.append(_Turn(printed=printed))
        return self._verdict()

    def tool_turn(self, calls: Iterable[tuple[str, Any, ToolResult]]) -> str | None:
        """A turn's tool calls as (name, arguments, result), in order; the cause as text_turn's."""
        made = []
        progress = False
        for name, arguments, result in calls:
            self.calls_made += 1
            key = _key(name, arguments)
            if result.ok:
                seen = hashlib.blake2b(f"{key}\0{result.to_json()}".encode(), digest_size=16).hexdigest()
                progress = progress or seen not in self._seen
                self._seen.add(seen)
            missing = result.data.get("items", ()) if result.error == "unfinished" else ()
            items = tuple(str(i.get("id")) for i in missing if isinstance(i, dict))
            made.append(_Call(name, key, result.ok, result.error, _message(result), _target(arguments),
                              items))
        if progress:
            self._streak.clear()
            return None
        self._streak.append(_Turn(tuple(made)))
        return self._verdict()

    def forget(self) -> None:
        """The model no longer sees what it read (a new phase or batch, turns trimmed from the
        conversation): reading it again is new to it, so it counts as progress once more."""
        self._seen.clear()

    def _verdict(self) -> str | None:
        if not self.limit or len(self._streak) < self.limit:
            return None
        return self.cause()

    def cause(self) -> str:
        """Why the turns in a row got nowhere, in one line."""
        turns, n = self._streak, len(self._streak)
        if all(not t.calls for t in turns):
            printed = next((t.printed for t in reversed(turns) if t.printed), None)
            if not self.calls_made:
                how = f", it wrote them as text ({printed})" if printed else ""
                return f"the model never called a tool{how}: does {self.model} support tool calling?"
            if printed:
                return (f"the model wrote tool calls as text ({printed}) instead of making them, "
                        f"{n} times in a row")
            return f"the model answered with text only {n} times in a row, calling no tool"
        calls = [c for t in turns for c in t.calls]
        if all(t.calls for t in turns) and all(c.error == "unfinished" for c in calls):
            ids = turns[-1].calls[-1].items
            shown = ", ".join(ids[:10]) + (f" (+{len(ids) - 10} more)" if len(ids) > 10 else "")
            return f"finish_phase refused {n} times: {shown} {_is(len(ids), 'has', 'have')} no disposition"
        last = turns[-1].calls
        same = all(t.calls and [c.key for c in t.calls] == [c.key for c in last] for t in turns)
        if same and all(not c.ok for c in calls):
            c = last[-1]
            what = f"{c.name} {c.target}" if c.target and c.target not in c.message else c.name
            return f"the same invalid call {n} times: {what}: {c.message}"
        if same:
            return f"the same call {n} times with the same result: {last[-1].name} {last[-1].target}".rstrip()
        if all(t.calls for t in turns) and len({c.name for c in calls}) == 1 and not any(c.ok for c in calls):
            c = calls[-1]
            return f"{c.name} failed {len(calls)} times in a row, the last: {c.message}"
        return f"{n} model calls in a row got nowhere: " + "; ".join(_summary(t) for t in turns)


def _summary(turn: _Turn) -> str:
    if not turn.calls:
        return f"a tool call written as text ({turn.printed})" if turn.printed else "text only"
    parts = []
    for c in turn.calls:
        how = "repeated" if c.ok else "refused" if c.error in ("refused", "unfinished") else "failed"
        parts.append(f"{c.name} {how}")
    return ", ".join(dict.fromkeys(parts))
