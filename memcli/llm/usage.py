"""What a model call gives back: the tokens and cost it used, and an assistant turn."""

from __future__ import annotations

import datetime as dt
import json
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class CallUsage:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = None
    calls: int = 0

    def __add__(self, other: CallUsage) -> CallUsage:
        cost = None if self.cost_usd is None and other.cost_usd is None else (
            (self.cost_usd or 0.0) + (other.cost_usd or 0.0))
        return CallUsage(self.prompt_tokens + other.prompt_tokens,
                         self.completion_tokens + other.completion_tokens, cost, self.calls + other.calls)


@dataclass(frozen=True)
class ToolCallRequest:
    id: str
    name: str
    arguments: dict[str, Any] | str  # the raw string when the model sent malformed JSON


@dataclass(frozen=True)
class ChatTurn:
    content: str | None
    tool_calls: tuple[ToolCallRequest, ...]
    usage: CallUsage
    message: dict[str, Any]  # the assistant message, ready to append to the conversation


_LOG_LOCK = threading.Lock()


def log_call(log: Path | None, *, role: str, model: str, mode: str, started: float,
             usage: CallUsage | None, error: str | None) -> None:
    """One line of `llm-calls.jsonl` for a call (or an agent's run) that began at `started`
    (time.monotonic()): every backend writes the same row, so spend is read one way."""
    if log is None:
        return
    row = {"time": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"), "role": role, "model": model,
           "mode": mode, "seconds": round(time.monotonic() - started, 3), "ok": error is None,
           "error": error, "prompt_tokens": usage.prompt_tokens if usage else 0,
           "completion_tokens": usage.completion_tokens if usage else 0,
           "cost_usd": usage.cost_usd if usage else None}
    line = json.dumps(row, ensure_ascii=False) + "\n"
    with _LOG_LOCK:  # one write per line in append mode: concurrent calls never interleave
        log.parent.mkdir(parents=True, exist_ok=True)
        with log.open("a", encoding="utf-8") as fh:
            fh.write(line)
