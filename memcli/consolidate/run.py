"""`memcli consolidate`: one locked, all-or-nothing run (plus bounded coalesced follow-ups).

Order of one run: snapshot the consumed staging ids → scratch copy → one model conversation
(integration, GC, lint repair) on the copy → the change set → (dry run: print it) → journaled apply
→ one git commit → remove the consumed staging files. Anything failing before the apply leaves the
workspace untouched; the apply itself is all-or-nothing (`journal`).
"""

from __future__ import annotations

import datetime as dt
import os
import sys
from dataclasses import dataclass, field
from typing import Any

from memcli import history, progress
from memcli.consolidate import (
    agent,
    branches,
    budget,
    delegate,
    dispositions,
    gitops,
    inputs,
    journal,
    land,
    lock,
    message,
    plan,
    proposals,
    scratch,
)
from memcli.consolidate.output import (
    Options,
    RunResult,
    print_deferred,
    print_nothing,
    print_report,
    usage_json,
)
from memcli.errors import EXIT_FINDINGS, MemcliError, UsageError
from memcli.gc import RecordUsage, build_report
from memcli.llm import AgentGateway, Gateway, assumed_window, choose_model, is_agent_model, preload, spend
from memcli.metrics import candidate_report, load_metrics
from memcli.provenance import Trust
from memcli.skills.after import after_consolidation
from memcli.team import staging as shared
from memcli.tools import ToolSession
from memcli.values import frozen
from memcli.workspace import Workspace

__all__ = ["Options", "run"]

CONSUMING = ("committed", "applied", "no-changes", "proposed")  # results whose staging files were used up


@dataclass
class _Context:
    ws: Workspace
    opts: Options
    repo: gitops.Repo | None
    gateway: Any
    progress: progress.Reporter
    results: list[RunResult] = field(default_factory=list)


def _stamp() -> str:
    return dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%SZ")


def _preflight(ws: Workspace, opts: Options) -> gitops.Repo | None:
    if opts.propose and (opts.no_commit or opts.allow_dirty):
        raise UsageError("--propose commits on a branch made from the last commit: it goes with neither "
                         "--no-commit nor --allow-dirty")
    repo = gitops.open_repo(ws)
    if repo is None and not (opts.dry_run or opts.no_commit):
        raise UsageError(
            f"{ws.root} is not inside a git repository: run `git init` first, or pass --no-commit"
        )
    if repo is not None and not (opts.allow_dirty or opts.dry_run):
        dirty = gitops.dirty_paths(repo)
        if dirty:
            shown = ", ".join(dirty[:5]) + (f" (+{len(dirty) - 5} more)" if len(dirty) > 5 else "")
            raise UsageError(
                f"uncommitted changes in memory/ or knowledge/ ({shown}): commit or discard them first, "
                "or pass --allow-dirty"
            )
    return repo if not opts.no_commit and not opts.dry_run else None


def _scratch_workspace(ws: Workspace, run_id: str) -> Workspace:
    work = scratch.make(ws, run_id)
    # The scratch copy gets its own state folder: the tools' search index must not mix the copy's
    # records with the real workspace's (MEMCLI_STATE_DIR would otherwise make them share one).
    work.__dict__["state_dir"] = work.root / ".memcli"
    work.__dict__["clone_root"] = work.root  # never the clone's shared staging
    return work


@frozen
class _Material:
    candidates: dict[str, Any]  # knowledge-candidate report (JSON form, for the model)
    candidate_sources: frozenset[tuple[str, int, int]]  # what a new knowledge file may cite
    gc_report: dict[str, Any]
    rates: dict[str, float] | None  # usage protection; None while no metrics exist


def _material(ws: Workspace) -> _Material:
    """Knowledge-candidate report, gc-report and usage rates, from the workspace as it is now."""

    metrics = load_metrics(ws)
    report = candidate_report(ws, metrics)
    usage = None
    if metrics is not None:
        usage = {
            path: RecordUsage(m.count, m.tokens, m.last_use, m.window_start)
            for path, m in metrics.records.items()
        }
    gc = build_report(ws, metrics=usage)
    return _Material(report.to_json_dict(), report.sources, gc.to_json_dict(),
                     metrics.rates() if metrics else None)


def _one_run(ctx: _Context, staging: inputs.StagingSet, run_id: str) -> RunResult:
    ws, opts = ctx.ws, ctx.opts
    result = RunResult(run_id, started_at=history.now(), consumed=staging.ids, invalid=list(staging.invalid))
    history.record(ws, "consolidate", result.to_history(running=True))
    work = _scratch_workspace(ws, run_id)
    convo: delegate.AgentConversation | agent.Conversation | None = None
    flagged: tuple[str, ...] = ()  # the run's untrusted sentences: what reports shown to people withhold
    try:
        before = scratch.fingerprint(ws)
        material = _material(ws)
        trust = Trust.of_staging(e.data for e in staging.entries)
        flagged = trust.flagged
        tools = ToolSession(
            work,
            allowed_sources=staging.sources,
            knowledge_sources=material.candidate_sources,
            usage_rates=material.rates,
            trust=trust,
            docs_root=ws.root,  # project_docs reads AGENTS.md / docs/ of the real project
        )
        cfg = ws.config.consolidate
        ledger = dispositions.Ledger([item for item, _ in dispositions.number_items(staging)], work.root)
        now = dt.datetime.now().astimezone().isoformat(timespec="seconds")
        window = budget.measure(ctx.gateway.context_tokens,
                                tools.schemas() + [dispositions.DISPOSE, dispositions.FINISH], now)
        layout = plan.plan(work, staging, material.candidates, material.gc_report, window)
        # background work (cron's --if-needed) also stops where the day's budget ends
        caps = spend.run_budget(ws, background=opts.if_needed)
        if isinstance(ctx.gateway, AgentGateway):  # a coding agent runs its own tool loop
            convo = delegate.AgentConversation(
                ctx.gateway, tools, work, layout, now=now, max_iterations=cfg.max_iterations,
                repair_turns=cfg.repair_turns, ledger=ledger, progress=ctx.progress, budget=caps,
                timeout_s=cfg.agent_timeout_s)
        else:
            convo = agent.Conversation(
                ctx.gateway, tools, work, layout, now=now,
                max_iterations=cfg.max_iterations, repair_turns=cfg.repair_turns, ledger=ledger,
                no_progress_turns=cfg.no_progress_turns, progress=ctx.progress, budget=caps,
            )
        convo.run()
        result.absorb(convo, flagged)
        if ledger.missing():  # the conversation cannot end so; checked again before staging goes
            raise agent.RunFailed(
                f"{len(ledger.missing())} staging items have no disposition; staging is kept")
        changes = scratch.changes(ws, work)
        result.reports = message.file_reports(changes, tools.journal, flagged)
        if opts.dry_run:
            result.result = "dry-run"
            result.diff = "".join(scratch.unified_diff(c) for c in changes)
            return result
        if scratch.fingerprint(ws) != before:
            raise agent.RunFailed("memory/ or knowledge/ changed while the model worked; run again")
        if not changes:
            journal.apply(ws, [], run_id=run_id, consumed=staging.ids, repo=None, message="")
            result.result = "no-changes"
            return result
        text = message.commit_message(result.reports, run_id=run_id, consumed=staging.ids,
                                      stats=result.stats_line(ctx.gateway.model), dropped=ledger.dropped(),
                                      flagged=flagged, refusals=result.refusals, vouched=tools.vouched)
        applied = land.land(ws, changes, run_id=run_id, consumed=staging.ids, repo=ctx.repo, message=text,
                            propose=opts.propose)
        result.sha, result.kept, result.note = applied.sha, applied.kept, applied.pending
        result.result = "proposed" if applied.branch else "committed" if applied.sha else "applied"
        result.branch = applied.branch
        return result
    except MemcliError as exc:
        if isinstance(exc, journal.ApplyFailed):
            result.kept = exc.kept
        if convo is not None:
            result.absorb(convo, flagged)
        result.result, result.error = "failed", str(exc)
        return result
    except BaseException as exc:  # a bug or an interrupt: still leave an honest history entry
        result.result, result.error = "failed", f"{type(exc).__name__}: {exc}"
        raise
    finally:
        result.finished_at = history.now()
        history.record(ws, "consolidate", result.to_history())
        scratch.drop(work)


def run(ws: Workspace, opts: Options) -> int:
    base_id = f"{_stamp()}-{os.getpid()}"
    # The lock comes first: while another run applies, its written-but-uncommitted files make the
    # workspace look dirty, and "commit or discard them" would be advice that wrecks that run.
    held = lock.acquire(ws, base_id, [])
    results: list[RunResult] = []
    try:
        note = journal.recover(ws)
        if note:
            print(f"consolidate: {note}", file=sys.stderr)
        # Nothing staged means nothing to integrate: no model call. Invalid staging files count toward
        # the trigger but give a run nothing to do either; they are reported, never consumed.
        routing = _route(ws, opts)
        staged = routing.take(inputs.load_staging(ws))
        # A staging file that cannot be read fails the command (its problems are listed), so a
        # schedule notices; the valid ones are integrated all the same.
        broken = EXIT_FINDINGS if staged.invalid else 0
        if not staged.entries or (opts.if_needed and not inputs.trigger_reached(ws, staged)):
            print_nothing(ws, opts, staged.invalid, waiting=routing.waiting)
            return broken
        waits = spend.day_spent(ws) if opts.if_needed else None
        if waits:  # background work waits for tomorrow's budget; a run by hand still runs
            _deferred(ws, base_id, waits, opts)
            return broken

        progress.note("consolidate: reading staging and memory…")
        choice = choose_model(ws, "consolidation", opts.model)
        if not is_agent_model(choice.model):
            preload()  # the model library loads while the workspace is checked and the inputs assembled
        repo = _preflight(ws, opts)

        gateway = Gateway.from_config(ws, role="consolidation", model=choice.model)
        if choice.notice("consolidation"):  # said whatever the progress mode: which model runs
            print(f"consolidate: {choice.notice('consolidation')}", file=sys.stderr)
        with progress.reporter(opts.progress, "consolidate", machine_output=opts.json) as shown:
            assumed = assumed_window(ws, gateway.model)
            if assumed:
                shown.say(f"consolidate: {assumed}")
            ctx = _Context(ws, opts, repo, gateway, shown)
            results = ctx.results
            scratch.clear_stale(ws)
            rounds = 1 if opts.propose else 1 + ws.config.consolidate.coalesce_runs  # one proposal, one run
            for round_no in range(rounds):
                staging = staged if round_no == 0 else _route(ws, opts).take(inputs.load_staging(ws))
                if round_no and not staging.entries:
                    break  # nothing arrived while the last run worked
                held = lock.update(ws, held, staging.ids)
                run_id = base_id if round_no == 0 else f"{base_id}.{round_no}"
                result = _one_run(ctx, staging, run_id)
                ctx.results.append(result)
                if result.result in ("failed", "dry-run"):
                    break
    finally:
        lock.release(ws, held)
    code = max(print_report(results, opts, usage_json), broken)
    # items pulled from shared staging leave their refs once used (exit 4 if another run used them)
    shared.release(ws, [i for r in results if r.result in CONSUMING for i in r.consumed],
                   push=not opts.keep_published)
    _skills(ws, [r.result for r in results])
    return code


def _deferred(ws: Workspace, run_id: str, why: str, opts: Options) -> None:
    """`--if-needed` over the day's budget: no model call, a state `memcli status` shows."""
    note = f"waits for the budget: {why}; staging is kept for a later run"
    history.record(ws, "consolidate", {"run_id": run_id, "started_at": history.now(),
                                       "finished_at": history.now(), "result": "deferred", "note": note})
    print_deferred(opts, note)
def _route(ws: Workspace, opts: Options) -> branches.Routing:
    """Settle reviewed proposals, then sort staging by branch: the items of branches gone too long
    go now (said on stderr), those of other branches wait."""
    if not opts.dry_run:
        proposals.settle(ws, gitops.open_repo(ws))
    routing = branches.route(ws, inputs.load_staging(ws).entries)
    if not opts.dry_run:
        for group in branches.expire(ws, routing):
            print(f"consolidate: {branches.expired_line(group, ws.config.memory.branch_staging_days)}",
                  file=sys.stderr)
    return routing


def _skills(ws: Workspace, done: list[str]) -> None:
    """The changed knowledge as the wired agents' skills, committed after a commit (memcli.skills)."""
    if "committed" in done or "applied" in done:
        after_consolidation(ws, committed="committed" in done)
