"""Options, the per-run result, and what `memcli consolidate` prints (human or `--json`)."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from memcli.consolidate import inputs
from memcli.consolidate.message import FileReport, counts
from memcli.errors import EXIT_FINDINGS, EXIT_OK
from memcli.tools.policy import withhold
from memcli.values import frozen
from memcli.workspace import STAGING_DIR, Workspace


@frozen
class Options:
    if_needed: bool = False
    dry_run: bool = False
    no_commit: bool = False
    allow_dirty: bool = False
    model: str | None = None
    json: bool = False
    keep_published: bool = False  # leave used shared-staging items on their refs for `staging clear`
    progress: str = "auto"  # --progress: auto | text | json | off (memcli.progress)
    propose: bool = False  # commit on a new branch memcli/proposal/<run> for review (proposals.py)


KEEP_REFUSALS = 100  # refused calls kept in the run record (all of them are counted)


@dataclass
class RunResult:
    run_id: str
    started_at: str
    consumed: list[str]
    invalid: list[tuple[str, str]] = field(default_factory=list)
    result: str = "running"  # committed | proposed | applied | no-changes | dry-run | failed
    error: str | None = None
    sha: str | None = None
    finished_at: str | None = None
    reports: list[FileReport] = field(default_factory=list)
    diff: str = ""
    kept: list[str] = field(default_factory=list)  # human edits met while applying, kept as they are
    note: str | None = None  # committed, but something is left for the next command to finish
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = None
    model_calls: int = 0
    tool_calls: int = 0
    repair_turns: int = 0
    dispositions: list[dict[str, Any]] = field(default_factory=list)  # per staging item
    batches: int = 1  # the staging items came in this many batches to fit the context window
    trimmed: int = 0  # old turns (tool results, the model's text, nudges) trimmed to fit it
    refusals: list[dict[str, Any]] = field(default_factory=list)  # refused tool calls (memcli.tools.Refusal)
    branch: str | None = None  # the proposal branch holding the commit (`--propose`)

    def absorb(self, convo: Any, flagged: Sequence[str] = ()) -> None:
        """What the conversation came to; titles and reasons pass the trust filter (`flagged`: the
        run's untrusted sentences), as everywhere a reviewer or an agent reads them."""
        usage = convo.usage
        if usage is not None:
            self.prompt_tokens, self.completion_tokens = usage.prompt_tokens, usage.completion_tokens
            self.cost_usd = usage.cost_usd
        self.model_calls, self.tool_calls = convo.iterations, convo.tool_calls
        self.repair_turns = convo.repairs
        self.batches, self.trimmed = len(convo.plan.batches), convo.trimmed
        self.refusals = [r.to_dict() for r in convo.tools.refusals]
        if convo.ledger is not None:
            self.dispositions = [
                {**d, "title": withhold(d["title"], flagged), "reason": withhold(d["reason"], flagged)}
                for d in convo.ledger.to_json()]

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def stats_line(self, model: str) -> str:
        line = f"Model {model}: {self.model_calls} calls, {self.tokens} tokens, {_cost(self.cost_usd)}."
        if self.batches > 1:
            line += f" Staging items in {self.batches} batches to fit the context window."
        return line

    def to_history(self, running: bool = False) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "started_at": self.started_at,
            "finished_at": None if running else self.finished_at,
            "result": "running" if running else self.result,
            "error": self.error,
            "commit": self.sha,
            **({"branch": self.branch} if self.branch else {}),
            "consumed": len(self.consumed),
            "counts": counts(self.reports),
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "cost_usd": self.cost_usd,
            "model_calls": self.model_calls,
            "refused": len(self.refusals),
            "refusals": self.refusals[:KEEP_REFUSALS],
        }

    def to_json(self) -> dict[str, Any]:
        data = self.to_history()
        data["files"] = [r.to_json() for r in self.reports]
        data["invalid_staging"] = [{"file": f, "why": w} for f, w in self.invalid]
        data["consumed"] = self.consumed
        data["dispositions"] = self.dispositions
        data["batches"], data["trimmed"] = self.batches, self.trimmed
        data["kept_edits"] = self.kept
        if self.note:
            data["note"] = self.note
        if self.diff:
            data["diff"] = self.diff
        return data


def refusal_line(refusal: dict[str, Any]) -> str:
    """`memory_write memory/decisions/x.md: untrusted-instruction`: a refused call in one line."""
    return f"{refusal['tool']} {refusal.get('path') or '-'}: {refusal['code']}"


def _cost(cost: float | None) -> str:
    return "cost unknown" if cost is None else f"${cost:.4f}"


def usage_json(results: list[RunResult]) -> dict[str, Any]:
    costs = [r.cost_usd for r in results if r.cost_usd is not None]
    return {
        "prompt_tokens": sum(r.prompt_tokens for r in results),
        "completion_tokens": sum(r.completion_tokens for r in results),
        "cost_usd": sum(costs) if costs else None,
    }


def print_nothing(ws: Workspace, opts: Options, invalid: tuple[tuple[str, str], ...] = (),
                  waiting: Sequence[Any] = ()) -> None:
    """`waiting`: the branch groups (memcli.consolidate.branches) whose items wait for their branch."""
    count, size = inputs.staging_stats(ws)
    count -= sum(len(g.ids) for g in waiting)  # what a run on this branch would take
    others = (f"; {sum(len(g.ids) for g in waiting)} staging files of other branches wait for them "
              "(`memcli status` lists them)") if waiting else ""
    for name, why in invalid:
        print(f"consolidate: skipped staging file {name}: {why} (left in place)", file=sys.stderr)
    cfg = ws.config.consolidate
    # A plain run integrates whatever is staged: only --if-needed waits for the trigger.
    below = opts.if_needed and count > len(invalid)
    if opts.json:
        print(json.dumps({"result": "nothing-to-do", "why": "below-trigger" if below else "no-staging-items",
                          "staging_files": count, "staging_bytes": size,
                          "waiting": [g.to_json() for g in waiting],
                          "trigger_files": cfg.trigger_files, "trigger_bytes": cfg.trigger_bytes}))
    elif opts.if_needed:
        print(f"consolidate: nothing to do ({count} staging files, {size} bytes; runs above "
              f"{cfg.trigger_files} files or {cfg.trigger_bytes} bytes){others}")
    elif invalid:
        print(f"consolidate: nothing to do: no valid staging items ({len(invalid)} staging files could not "
              f"be read; they are left in place){others}")
    elif waiting:
        print(f"consolidate: nothing to do on this branch{others}")
    else:
        print(f"consolidate: nothing to do: no staging items ({STAGING_DIR} is empty)")


def print_deferred(opts: Options, note: str) -> None:
    if opts.json:
        print(json.dumps({"result": "deferred", "why": "budget", "note": note}, ensure_ascii=False))
    else:
        print(f"consolidate: {note}")


_SAFE = "Nothing was changed: memory/, knowledge/, staging and git HEAD are as they were."
_SAFE_BUT_KEPT = ("Every file the run wrote was put back and the human edits named above were kept; "
                  "staging and git HEAD are as they were.")


def _human(r: RunResult) -> None:
    c = counts(r.reports)
    tally = f"{c['added']} added, {c['updated']} updated, {c['replaced']} replaced, {c['dropped']} dropped"
    usage = f"{r.model_calls} model calls, {r.tokens} tokens, {_cost(r.cost_usd)}"
    for name, why in r.invalid:
        print(f"consolidate: skipped staging file {name}: {why} (left in place)", file=sys.stderr)
    if r.result == "failed":
        safe = _SAFE_BUT_KEPT if r.kept else _SAFE
        print(f"consolidate failed: {r.error}. {safe} ({usage})", file=sys.stderr)
        return
    if r.result == "dry-run":
        sys.stdout.write(r.diff)
        print(f"dry run: would apply {tally} from {len(r.consumed)} staging files; nothing applied, "
              f"staging kept ({usage})")
        return
    where = {"committed": f"committed {(r.sha or '')[:10]}", "applied": "applied without a commit",
             "no-changes": "no changes to make",
             "proposed": f"proposed {(r.sha or '')[:10]} on branch {r.branch} (nothing checked out changed)",
             }[r.result]
    print(f"consolidate: {where}: {tally}; {len(r.consumed)} staging files consumed ({usage})")
    for rep in r.reports:
        tag = f" [{', '.join(rep.categories)}]" if rep.categories else ""
        print(f"  {rep.outcome:8} {rep.path}{tag}")
    for d in r.dispositions:
        if d["action"] == "dropped":
            print(f"  dropped staging item: {d['kind']} {d['title']!r}: {d['reason']}")
    for refusal in r.refusals[:10]:
        print(f"  refused tool call: {refusal_line(refusal)}")
    if len(r.refusals) > 10:
        print(f"  … and {len(r.refusals) - 10} more refused tool calls (`memcli status --json` lists them)")
    for path in r.kept:
        print(f"consolidate: {path} was edited while the run applied; the edit is kept, uncommitted",
              file=sys.stderr)
    if r.note:
        print(f"consolidate: {r.note}", file=sys.stderr)
    if r.result == "proposed":
        print(f"  the staging files wait for the review; {proposal_help(r)}")


def proposal_help(r: RunResult) -> str:
    return (f"review: git diff HEAD...{r.branch} (or push it and open a pull request); accept: "
            f"git merge {r.branch}; reject: memcli proposals reject {r.run_id} --reason \"...\"")


def print_report(results: list[RunResult], opts: Options, usage: Any) -> int:
    failed = any(r.result == "failed" for r in results)
    if opts.json:
        print(json.dumps({"result": "failed" if failed else (results[-1].result if results else "nothing"),
                          "runs": [r.to_json() for r in results], "usage": usage(results)},
                         ensure_ascii=False, indent=2))
    else:
        for r in results:
            _human(r)
    return EXIT_FINDINGS if failed else EXIT_OK
