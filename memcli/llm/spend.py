"""What the model calls have spent, from the call log, and the budget they spend it within.

Every model call memcli makes (the gateway, and any backend that logs the same rows) appends one
JSON line to `<state dir>/llm-calls.jsonl`: time, role, model, mode, seconds, ok, error,
prompt_tokens, completion_tokens, cost_usd. Spend is summed from those rows, so it counts whatever
made the call, a run that was killed included. The log only grows; it is read from its end back,
as far as the span asked for.

`memory.budget` (memcli.config.BudgetConfig): `day_*` for a day (local time) of all calls, past
which background work (the capture hook, `consolidate --if-needed`) waits; `run_*` for one run.
A background run also stops where the day's budget ends. Cost counts only calls whose price is
known; a local or unknown model costs nothing in USD, so only `*_tokens` bounds it.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memcli.atomicio import durable_append
from memcli.values import frozen

if TYPE_CHECKING:
    from memcli.llm.usage import CallUsage
    from memcli.workspace import Workspace

RUN_LOG = "llm-calls.jsonl"
_BLOCK = 64 * 1024
# Rows are written when a call ends, by several processes at once: the log is in time order only
# up to about one call, so reading back goes this far past the start of the span.
_SLACK = dt.timedelta(minutes=30)


@frozen
class Spend:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = None  # None: no call had a known price
    calls: int = 0
    unpriced: int = 0  # calls that used tokens at no known price

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def to_json(self) -> dict[str, Any]:
        return {"prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens,
                "tokens": self.tokens, "cost_usd": self.cost_usd, "calls": self.calls,
                "unpriced_calls": self.unpriced}


def log_path(state_dir: Path) -> Path:
    return state_dir / RUN_LOG


def _lines_back(path: Path):
    """The log's lines, last first (a torn last line included: the caller skips what does not parse)."""
    try:
        fh = path.open("rb")
    except OSError:
        return
    with fh:
        pos = fh.seek(0, os.SEEK_END)
        rest = b""
        while pos > 0:
            step = min(_BLOCK, pos)
            pos -= step
            fh.seek(pos)
            chunk = fh.read(step) + rest
            lines = chunk.split(b"\n")
            rest = lines[0]
            yield from reversed(lines[1:])
        yield rest


def _time(row: dict[str, Any]) -> dt.datetime | None:
    try:
        when = dt.datetime.fromisoformat(str(row["time"]))
    except (KeyError, ValueError):
        return None
    return when if when.tzinfo else when.replace(tzinfo=dt.UTC)


def spent(state_dir: Path, since: dt.datetime, until: dt.datetime | None = None,
          role: str | None = None) -> Spend:
    """What the calls logged from `since` (to `until`; of `role` when given) spent."""
    prompt = completion = calls = unpriced = 0
    cost: float | None = None
    for raw in _lines_back(log_path(state_dir)):
        try:
            row = json.loads(raw)
        except ValueError:
            continue
        when = _time(row) if isinstance(row, dict) else None
        if when is None:
            continue
        if when < since - _SLACK:
            break
        if when < since or (until is not None and when > until) or (role and row.get("role") != role):
            continue
        p, c = _int(row.get("prompt_tokens")), _int(row.get("completion_tokens"))
        prompt, completion, calls = prompt + p, completion + c, calls + 1
        price = row.get("cost_usd")
        if isinstance(price, (int, float)) and not isinstance(price, bool):
            cost = (cost or 0.0) + float(price)
        elif p or c:
            unpriced += 1
    return Spend(prompt, completion, cost, calls, unpriced)


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def day_start(now: dt.datetime | None = None) -> dt.datetime:
    """Midnight of today, local time (a budget "per day" is the user's day, not UTC's)."""
    local = (now or dt.datetime.now(dt.UTC)).astimezone()
    return local.replace(hour=0, minute=0, second=0, microsecond=0)


def today(ws: Workspace) -> Spend:
    return spent(ws.state_dir, day_start())


@frozen
class Cap:
    """One ceiling: `key` (memory.budget.run_tokens ...) allows `limit` of `unit`; `before` of it was
    spent before the run began (a day's cap), so the run may spend limit - before."""

    key: str
    unit: str  # tokens | usd
    limit: float
    before: float = 0.0
    what: str = "the run has"

    def used(self, tokens: int, cost: float | None) -> float:
        return self.before + (tokens if self.unit == "tokens" else (cost or 0.0))

    def reached(self, tokens: int, cost: float | None) -> str | None:
        used = self.used(tokens, cost)
        if used < self.limit:
            return None
        limit = _amount(self.limit, self.unit)
        return f"{self.what} spent {_amount(used, self.unit)}, the {self.key} of {limit}"


def _amount(value: float, unit: str) -> str:
    return f"{int(value):,} tokens" if unit == "tokens" else f"${value:.4f}"


@frozen
class Budget:
    """The ceilings one run stops at (none: it runs to its other bounds)."""

    caps: tuple[Cap, ...] = ()

    def reached(self, usage: Any) -> str | None:
        """Why the run must stop now, given what it has spent (anything with prompt_tokens,
        completion_tokens, cost_usd: memcli.llm.CallUsage), or None."""
        tokens = usage.prompt_tokens + usage.completion_tokens
        for cap in self.caps:
            why = cap.reached(tokens, usage.cost_usd)
            if why:
                return why
        return None


def _day_caps(ws: Workspace, spend: Spend) -> list[Cap]:
    cfg = ws.config.memory.budget
    caps = []
    if cfg.day_tokens is not None:
        caps.append(Cap("memory.budget.day_tokens", "tokens", cfg.day_tokens, spend.tokens,
                        "today's model calls have"))
    if cfg.day_usd is not None:
        caps.append(Cap("memory.budget.day_usd", "usd", cfg.day_usd, spend.cost_usd or 0.0,
                        "today's model calls have"))
    return caps


def run_budget(ws: Workspace, background: bool = False) -> Budget:
    """The caps of one run: `run_*`, and for background work what is left of the day's budget."""
    cfg = ws.config.memory.budget
    caps = []
    if cfg.run_tokens is not None:
        caps.append(Cap("memory.budget.run_tokens", "tokens", cfg.run_tokens))
    if cfg.run_usd is not None:
        caps.append(Cap("memory.budget.run_usd", "usd", cfg.run_usd))
    if background and (cfg.day_tokens is not None or cfg.day_usd is not None):
        caps += _day_caps(ws, today(ws))
    return Budget(tuple(caps))


def day_spent(ws: Workspace, spend: Spend | None = None) -> str | None:
    """Why background work waits now (today's budget is spent), or None. `spend`: today's, when
    the caller has it."""
    cfg = ws.config.memory.budget
    if cfg.day_tokens is None and cfg.day_usd is None:
        return None
    for cap in _day_caps(ws, spend or today(ws)):
        why = cap.reached(0, None)
        if why:
            return why
    return None


def budget_state(ws: Workspace) -> dict[str, Any]:
    """Today's spend and the day's budget, for `memcli status`."""
    cfg = ws.config.memory.budget
    spend = today(ws)
    return {"today": spend.to_json(), "day_tokens": cfg.day_tokens, "day_usd": cfg.day_usd,
            "run_tokens": cfg.run_tokens, "run_usd": cfg.run_usd, "spent": day_spent(ws, spend)}


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
        durable_append(log, line)  # private to its user, as all of memcli's state (memcli.atomicio)
