"""`memcli status`: the pipeline at a glance (memcli.status), exit 1 when the last run failed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from memcli.commands import open_workspace
from memcli.errors import EXIT_FINDINGS, EXIT_OK
from memcli.plural import counted, plural
from memcli.status import collect, failed


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
        result += f" ({counted(counts)})"
    tokens = int(run.get("prompt_tokens") or 0) + int(run.get("completion_tokens") or 0)
    line = f"{when}: {result}; {tokens} tokens, {_cost(run.get('cost_usd'))}"
    if run.get("usage_from"):  # an interrupted run: what its calls spent, from the call log
        line += f" in {run.get('model_calls')} model calls (from {run['usage_from']})"
    if run.get("refused"):  # consolidation: what the tools stopped (`--json` lists each call)
        line += f"; {run['refused']} refused tool calls (`memcli status --json` lists them)"
    if run.get("error"):
        line += f"\n    why: {run['error']}"
    elif run.get("note"):
        line += f"\n    {run['note']}"
    return line


def _budget_lines(budget: dict[str, Any]) -> list[str]:
    today = budget["today"]
    limits = [f"{budget['day_tokens']:,} tokens" if budget["day_tokens"] else "",
              f"${budget['day_usd']:.2f}" if budget["day_usd"] else ""]
    shown = " / ".join(x for x in limits if x)
    line = (f"  model spend today:  {today['tokens']:,} tokens, {_cost(today['cost_usd'])} in "
            f"{plural(today['calls'], 'call')}")
    lines = [line + (f" (budget {shown} a day)" if shown else " (no daily budget: memory.budget)")]
    if budget["spent"]:
        lines.append(f"    budget spent: {budget['spent']}; the capture hook and `consolidate --if-needed` "
                     "wait until tomorrow (runs by hand still run)")
    if budget["deferred_sessions"]:
        lines.append(f"  deferred:           {budget['deferred_sessions']} session(s) captured over the "
                     "budget wait for extraction; `memcli extract` runs them now")
    return lines


def run(*, as_json: bool = False, workspace: Path | None = None) -> int:
    data = collect(open_workspace(workspace))
    code = EXIT_FINDINGS if failed(data["last_extract"]) or failed(data["last_consolidate"]) else EXIT_OK
    if as_json:
        print(json.dumps({**data, "ok": code == EXIT_OK}, ensure_ascii=False, indent=2))
    else:
        print(render(data))
    return code


def render(data: dict[str, Any]) -> str:
    """The status lines people read (`--json` gives `data` itself)."""
    st = data["staging"]
    lines = [f"memcli status — {data['workspace']}"]
    if data["recovered"]:
        lines.append(f"  recovered:          {data['recovered']}")
    pending = data["sessions_pending"]
    lines.append(f"  sessions pending:   {pending['sessions']} ({plural(pending['chunks'], 'chunk')} to "
                 f"extract; {pending['waiting']} still active, extracted once idle)")
    models = data["models"]
    shown = [f"{step} {models[role]['shown'] if models[role] else 'none'}"
             for step, role in (("extract", "extract"), ("consolidate", "consolidation"))]
    lines.append(f"  models:             {'; '.join(shown)}")
    if data["waiting_for_model"]:
        model = data["waiting_for_model"]
        reason = model["reason"]
        if reason.startswith("waiting"):
            lines.append(f"  extraction:         {model['sessions']} session(s) {reason}")
        else:  # turned off: a choice, said as such
            lines.append(f"  extraction:         {reason}; {model['sessions']} session(s) not extracted")
    due = "due: `consolidate --if-needed` will run" if st["due"] else "below the trigger"
    lines.append(f"  staging:            {st['files']} files, {st['bytes']} bytes "
                 f"(trigger: > {st['trigger_files']} files or > {st['trigger_bytes']} bytes; {due})")
    lines += branch_lines(data["branches"])
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
    lines += _budget_lines(data["budget"])
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
    return "\n".join(lines)


def branch_lines(found: dict[str, Any]) -> list[str]:
    """Staging per branch, and the open proposals (nothing when every item is for this branch)."""
    lines = []
    if found["groups"]:
        on = found["on"] or "a detached HEAD"
        lines.append(f"  branches:           on {on}: {found['here']} staging files to consolidate here")
        lines += [f"    {line}" for line in found["lines"]]
    for p in found["proposals"]:
        state = "its branch is deleted, not merged" if p["state"] == "gone" else "open"
        lines.append(f"  proposal:           {p['branch']} ({state}; {len(p['staging'])} staging files held)")
        lines += [f"    {line}" for line in p["review"]] if p["state"] == "open" else [
            f"    `memcli proposals reject {p['run_id']} --reason ...` drops them"]
    return lines
