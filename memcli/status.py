"""The pipeline at a glance (`memcli status`; memcli.commands.status prints it).

Sessions pending extraction (a dry extract plan), staging files and bytes against the
`--if-needed` trigger, shared-staging items whose removal from their refs is still pending, who
holds the consolidation lock, and the last extract and consolidation runs (when, result, tokens,
cost). A scheduled run that failed or was killed makes `status` exit 1, so monitoring notices
instead of trusting a silent cron job. The model each step uses is shown, the coding agent memcli
picked when none is set. Sessions that wait for a model (none, or a litellm model on the light
install) are a state, not a failure: status says what to set or install.
So is background work that waits for the budget (memory.budget): status shows today's spend,
summed from the call log (memcli.llm.spend), and what waits. A run that was killed shows what its
calls spent from that log too, as its own record never got to say.
"""

from __future__ import annotations

import datetime as dt
import socket
from typing import Any

from memcli import history
from memcli.consolidate import branches, gitops, inputs, journal, lock, proposals
from memcli.errors import ConfigError
from memcli.extract.ledger import Ledger
from memcli.extract.plan import plan
from memcli.extract.ready import waiting_for_model
from memcli.llm import choose_model, spend
from memcli.merge.setup import driver_configured
from memcli.search.semantic import describe as search_mode
from memcli.sessions import discover
from memcli.team.state import SharedState
from memcli.workspace import Workspace

CLEAR_COMMAND = "memcli staging clear"


def _pending_sessions(ws: Workspace) -> tuple[dict[str, int], set[str]]:
    """What `memcli extract` would do now: sessions and chunks to extract, sessions still active;
    and the ids of the sessions whose chunks need a model. A dry plan: it reads the sessions and
    the ledger and changes neither."""


    todo = plan(discover(ws), Ledger.open(ws.clone_state_dir), ws.config.extract, dt.datetime.now(dt.UTC),
                apply_resets=False)
    counts = {"sessions": len({w.key for w in todo.work}), "chunks": len(todo.work),
              "waiting": len(todo.waiting), "unreadable": len(todo.unreadable)}
    return counts, {w.info.session_id for w in todo.work if w.chunk.needs_model}


def _waiting_for_model(ws: Workspace, need_model: set[str]) -> dict[str, Any] | None:
    """Sessions to extract on an install that cannot call a model yet (found here, or left waiting
    by the capture hook, which may have named a transcript outside the agents' homes), and what
    would let it."""

    captured = {str(r.get("session")) for r in history.runs(ws, "extract") if r.get("result") == "waiting"}
    sessions = need_model | captured
    reason = waiting_for_model(ws) if sessions else None
    return None if reason is None else {"sessions": len(sessions), "reason": reason}


def _models(ws: Workspace) -> dict[str, Any]:
    """The model each step would use now; `default`: none is set, memcli picked the agent."""
    out: dict[str, Any] = {}
    for role in ("extract", "consolidation"):
        try:
            choice = choose_model(ws, role)
        except ConfigError:
            out[role] = None
            continue
        out[role] = {"model": choice.model, "default": choice.default, "shown": choice.described(role)}
    return out


def _pending_removals(ws: Workspace) -> dict[str, Any]:
    """Published items this clone consolidated but has not yet removed from their refs
    (`consolidate --keep-published`, or a removal that could not reach the remote). Until they
    are removed, other clones can still pull and consolidate them again."""
    ids = SharedState.load(ws).pending
    return {"count": len(ids), "ids": ids, "retry": CLEAR_COMMAND if ids else None}


def _run_state(ws: Workspace, run: dict[str, Any] | None,
               holder: lock.LockInfo | None) -> dict[str, Any] | None:
    if run is None:
        return None
    out = dict(run)
    if out.get("result") == "running":
        live = holder is not None and lock.holder_alive(holder) and str(out.get("run_id", "")).startswith(
            holder.run_id
        )
        if not live:
            out["result"] = "interrupted"
            out["error"] = out.get("error") or "the process ended before the run finished (killed?)"
            out = _logged_usage(ws, out, "consolidation")
    return out


def _extract_state(ws: Workspace, run: dict[str, Any] | None) -> dict[str, Any] | None:
    """Extract takes no lock: a run still marked running is live only while its process is."""
    if run is None or run.get("result") != "running":
        return run
    same_host = run.get("host") == socket.gethostname()
    pid = run.get("pid")
    if same_host and isinstance(pid, int) and not lock.pid_alive(pid):
        return _logged_usage(ws, {**run, "result": "interrupted",
                                  "error": "the process ended before the run finished (killed?)"}, "extract")
    return run


def _logged_usage(ws: Workspace, run: dict[str, Any], role: str) -> dict[str, Any]:
    """An interrupted run's tokens and cost from the call log (its record was never finished): the
    calls of its role since it started."""
    try:
        since = dt.datetime.fromisoformat(str(run.get("started_at")))
    except ValueError:
        return run
    used = spend.spent(ws.state_dir, since if since.tzinfo else since.replace(tzinfo=dt.UTC), role=role)
    if not used.calls or int(run.get("prompt_tokens") or 0) + int(run.get("completion_tokens") or 0):
        return run
    return {**run, "prompt_tokens": used.prompt_tokens, "completion_tokens": used.completion_tokens,
            "cost_usd": used.cost_usd, "model_calls": used.calls, "usage_from": spend.RUN_LOG}


def _budget(ws: Workspace, need_model: set[str]) -> dict[str, Any]:
    """Today's spend against memory.budget, and the sessions the capture hook left for it."""
    state = spend.budget_state(ws)
    deferred = {str(r.get("session")) for r in history.runs(ws, "extract") if r.get("result") == "deferred"}
    state["deferred_sessions"] = len(deferred & need_model)  # those not extracted since
    return state
def branch_staging(ws: Workspace) -> dict[str, Any]:
    """Staging per branch (memcli.consolidate.branches): what a consolidation on the checked-out
    branch takes, what waits for other branches, what goes soon; and the open proposals (merged
    ones settled on the way)."""
    staged = inputs.load_staging(ws)
    routing = branches.route(ws, staged.entries)
    open_ = [p for p in proposals.settle(ws, gitops.open_repo(ws)) if p.state != "accepted"]
    return {"on": routing.on, "here": len(routing.here), "days": ws.config.memory.branch_staging_days,
            "groups": [g.to_json() for g in routing.groups],
            "lines": [branches.describe(g, ws.config.memory.branch_staging_days) for g in routing.groups],
            "proposals": [{**p.to_json(), "review": p.review()} for p in open_]}


def failed(run: dict[str, Any] | None) -> bool:
    """A run that failed or was killed: `status` then exits 1, so monitoring notices."""
    return run is not None and run.get("result") in ("failed", "interrupted")


def collect(ws: Workspace) -> dict[str, Any]:
    recovered = journal.recover(ws)
    count, size = inputs.staging_stats(ws)
    cfg = ws.config.consolidate
    holder = lock.read_lock(ws)
    pending, need_model = _pending_sessions(ws)
    return {
        "workspace": str(ws.root),
        "recovered": recovered,
        "sessions_pending": pending,
        "waiting_for_model": _waiting_for_model(ws, need_model),
        "models": _models(ws),
        "staging": {"files": count, "bytes": size, "trigger_files": cfg.trigger_files,
                    "trigger_bytes": cfg.trigger_bytes, "due": inputs.trigger_reached(ws)},
        "shared_staging_pending": _pending_removals(ws),
        "branches": branch_staging(ws),
        "lock": None if holder is None else {**holder.to_json(), "alive": lock.holder_alive(holder)},
        "budget": _budget(ws, need_model),
        "last_extract": _extract_state(ws, history.last(ws, "extract")),
        "last_consolidate": _run_state(ws, history.last(ws, "consolidate"), holder),
        "merge_driver": driver_configured(ws.root),
        "search": search_mode(ws),
    }
