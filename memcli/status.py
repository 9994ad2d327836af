"""`memcli status`: the pipeline at a glance.

Sessions pending extraction (a dry extract plan), staging files and bytes against the
`--if-needed` trigger, shared-staging items whose removal from their refs is still pending, who
holds the consolidation lock, and the last extract and consolidation runs (when, result, tokens,
cost). A scheduled run that failed or was killed makes `status` exit 1, so monitoring notices
instead of trusting a silent cron job. Sessions that wait for a model (none configured, or the
light install without litellm) are a state, not a failure: status says what to set or install.
"""

from __future__ import annotations

import json
import socket
from typing import Any

from memcli import history
from memcli.consolidate import inputs, journal, lock
from memcli.errors import EXIT_FINDINGS, EXIT_OK
from memcli.merge.setup import driver_configured
from memcli.search.semantic import describe as search_mode
from memcli.team.state import SharedState
from memcli.workspace import Workspace

CLEAR_COMMAND = "memcli staging clear"


def _pending_sessions(ws: Workspace) -> tuple[dict[str, int], set[str]]:
    """What `memcli extract` would do now: sessions and chunks to extract, sessions still active;
    and the ids of the sessions whose chunks need a model. A dry plan: it reads the sessions and
    the ledger and changes neither."""
    import datetime as dt

    from memcli.extract.ledger import Ledger
    from memcli.extract.plan import plan
    from memcli.sessions import discover

    todo = plan(discover(ws), Ledger.open(ws.state_dir), ws.config.extract, dt.datetime.now(dt.UTC),
                apply_resets=False)
    counts = {"sessions": len({w.key for w in todo.work}), "chunks": len(todo.work),
              "waiting": len(todo.waiting), "unreadable": len(todo.unreadable)}
    return counts, {w.info.session_id for w in todo.work if w.chunk.needs_model}


def _waiting_for_model(ws: Workspace, need_model: set[str]) -> dict[str, Any] | None:
    """Sessions to extract on an install that cannot call a model yet (found here, or left waiting
    by the capture hook, which may have named a transcript outside the agents' homes), and what
    would let it."""
    from memcli.extract.ready import waiting_for_model

    captured = {str(r.get("session")) for r in history.runs(ws, "extract") if r.get("result") == "waiting"}
    sessions = need_model | captured
    reason = waiting_for_model(ws) if sessions else None
    return None if reason is None else {"sessions": len(sessions), "reason": reason}


def _pending_removals(ws: Workspace) -> dict[str, Any]:
    """Published items this clone consolidated but has not yet removed from their refs
    (`consolidate --keep-published`, or a removal that could not reach the remote). Until they
    are removed, other clones can still pull and consolidate them again."""
    ids = SharedState.load(ws).pending
    return {"count": len(ids), "ids": ids, "retry": CLEAR_COMMAND if ids else None}


def _run_state(run: dict[str, Any] | None, holder: lock.LockInfo | None) -> dict[str, Any] | None:
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
    return out


def _extract_state(run: dict[str, Any] | None) -> dict[str, Any] | None:
    """Extract takes no lock: a run still marked running is live only while its process is."""
    if run is None or run.get("result") != "running":
        return run
    same_host = run.get("host") == socket.gethostname()
    pid = run.get("pid")
    if same_host and isinstance(pid, int) and not lock.pid_alive(pid):
        return {**run, "result": "interrupted",
                "error": "the process ended before the run finished (killed?)"}
    return run


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
        "staging": {"files": count, "bytes": size, "trigger_files": cfg.trigger_files,
                    "trigger_bytes": cfg.trigger_bytes, "due": inputs.trigger_reached(ws)},
        "shared_staging_pending": _pending_removals(ws),
        "lock": None if holder is None else {**holder.to_json(), "alive": lock.holder_alive(holder)},
        "last_extract": _extract_state(history.last(ws, "extract")),
        "last_consolidate": _run_state(history.last(ws, "consolidate"), holder),
        "merge_driver": driver_configured(ws.root),
        "search": search_mode(ws),
    }


def _cost(cost: Any) -> str:
    return "cost unknown" if cost is None else f"${float(cost):.4f}"


def _run_line(run: dict[str, Any] | None) -> str:
    if run is None:
        return "never"
    when = run.get("finished_at") or run.get("started_at") or "?"
    result = str(run.get("result"))
    if run.get("commit"):
        result += f" {str(run['commit'])[:10]}"
    counts = run.get("counts")
    if isinstance(counts, dict) and any(counts.values()):
        result += " (" + ", ".join(f"{v} {k}" for k, v in counts.items()) + ")"
    tokens = int(run.get("prompt_tokens") or 0) + int(run.get("completion_tokens") or 0)
    line = f"{when}: {result}; {tokens} tokens, {_cost(run.get('cost_usd'))}"
    if run.get("error"):
        line += f"\n    why: {run['error']}"
    elif run.get("note"):
        line += f"\n    {run['note']}"
    return line


def _failed(run: dict[str, Any] | None) -> bool:
    return run is not None and run.get("result") in ("failed", "interrupted")


def run(ws: Workspace, *, json_out: bool = False) -> int:
    data = collect(ws)
    code = EXIT_FINDINGS if _failed(data["last_extract"]) or _failed(data["last_consolidate"]) else EXIT_OK
    if json_out:
        print(json.dumps({**data, "ok": code == EXIT_OK}, ensure_ascii=False, indent=2))
        return code
    st = data["staging"]
    lines = [f"memcli status — {data['workspace']}"]
    if data["recovered"]:
        lines.append(f"  recovered:          {data['recovered']}")
    pending = data["sessions_pending"]
    lines.append(f"  sessions pending:   {pending['sessions']} ({pending['chunks']} chunks to extract; "
                 f"{pending['waiting']} still active, extracted once idle)")
    if data["waiting_for_model"]:
        model = data["waiting_for_model"]
        lines.append(f"  extraction:         {model['sessions']} session(s) {model['reason']}")
    due = "due: `consolidate --if-needed` will run" if st["due"] else "below the trigger"
    lines.append(f"  staging:            {st['files']} files, {st['bytes']} bytes "
                 f"(trigger: > {st['trigger_files']} files or > {st['trigger_bytes']} bytes; {due})")
    removals = data["shared_staging_pending"]
    if removals["count"]:
        lines.append(f"  shared staging:     {removals['count']} used items still published, their removal "
                     f"from the shared refs pending; `{removals['retry']}` removes them")
    held = data["lock"]
    if held is None:
        lines.append("  consolidation lock: free")
    else:
        state = "running" if held["alive"] else "stale (owner gone; the next run reclaims it)"
        lines.append(f"  consolidation lock: pid {held['pid']} on {held['host']} since {held['started_at']} "
                     f"({state})")
    lines.append(f"  last extract:       {_run_line(data['last_extract'])}")
    lines.append(f"  last consolidate:   {_run_line(data['last_consolidate'])}")
    found = data["search"]
    if found["mode"] == "lexical":
        lines.append("  search:             lexical (set search.embedding_model for hybrid)")
    else:
        lines.append(f"  search:             hybrid: lexical + {found['model']} "
                     f"({found['embedded']} of {found['records']} records embedded)")
        if found["unavailable"]:
            lines.append(f"    but searches stay lexical: {found['unavailable']}")
    if data["merge_driver"] is False:  # git config does not travel with a clone
        lines.append("  warning: this clone has no memcli merge driver (records would merge as plain text); "
                     "run `memcli init`")
    print("\n".join(lines))
    return code
