"""`memcli extract`: sessions → redacted chunks → one model call each → staging files + ledger."""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
import os
import socket
import sys
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from memcli import history, progress
from memcli.boundary import one_interrupt
from memcli.errors import EXIT_INTERRUPTED, EXIT_TERMINATED, ConfigError, UsageError
from memcli.extract import prompt, remember
from memcli.extract.branch import BranchResolver
from memcli.extract.ledger import Ledger, Span
from memcli.extract.plan import Plan, Work, plan
from memcli.extract.prepare import provenance_of
from memcli.extract.report import Result, Tally, print_dry_run, print_stale, print_summary
from memcli.extract.room import Room
from memcli.llm import (
    DEFAULT_CONTEXT,
    Gateway,
    MissingExtra,
    assumed_window,
    choose_model,
    chunks,
    context_tokens,
    is_agent_model,
    pool,
    preload,
    resolve_model,
    spend,
)
from memcli.progress import note
from memcli.records.models import Source
from memcli.secrets import redact
from memcli.sessions import discover
from memcli.staging import (
    Branch,
    ExtractedItems,
    Provenance,
    StagingFile,
    Usage,
    sifted,
    staging_id,
    staging_path,
    write_staging,
)
from memcli.values import frozen

if TYPE_CHECKING:
    from memcli.llm import AgentGateway, Gateway
    from memcli.llm.spend import Budget
    from memcli.workspace import Workspace


def run(workspace: Workspace, *, paths: list[Path] | None = None, since: dt.datetime | None = None,
        model: str | None = None, dry_run: bool = False, as_json: bool = False, stale: bool = False,
        redo: bool = False, ended: bool = False, session: str | None = None, progress_mode: str = "auto",
        background: bool = False, session_agent: str | None = None) -> int:
    """`ended`: the sessions are known to be over (an agent's session-end hook), so the idle window
    that keeps a running session from being extracted half-way does not apply. `session`: that
    session of the files alone (a capture hook's, in a file that holds others: OpenCode's database).
    `background`: the capture hook's run, which also stops where the day's budget ends.
    `session_agent`: the agent that session ran in, the default model when none is set. A dry run
    loads no model library: the context window comes from litellm's model table read as a file."""

    if not dry_run and (redo or not stale):
        note("extract: reading sessions…")
        if not is_agent_model(_chosen(workspace, model, session_agent)):
            preload()  # the model library loads while sessions are read (an agent needs none)
    # the clone's, as staging is: a session a nested worktree's workspace also sees is staged once
    ledger = Ledger.open(workspace.clone_state_dir)
    version = prompt.version()
    gateway: Gateway | ModelName | None = None
    if stale:
        model_name = resolve_model(workspace, "extract", model)
        old = [s for s in ledger.all_spans() if _stale(s, version, model_name)]
        if not redo or dry_run:  # a dry run never changes the ledger: it lists what --redo would redo
            print_stale(old, version, model_name, as_json)
            return 0
        gateway = _gateway(workspace, model, True, session_agent)  # fail before forgetting anything
        for span in old:
            ledger.forget(span)
    elif redo:
        raise UsageError("--redo goes with --stale")
    infos = [i for i in discover(workspace, since=since, paths=paths) if session in (None, i.session_id)]
    cfg = workspace.config.extract
    chunk = _chunk_tokens(workspace, model, cfg.chunk_tokens, dry_run, session_agent)
    cfg = dataclasses.replace(cfg, chunk_tokens=chunk,
                              **({"idle_minutes": 0} if ended else {}))
    todo = plan(infos, ledger, cfg, dt.datetime.now(dt.UTC), apply_resets=not dry_run)
    if dry_run:
        if any(w.chunk.needs_model for w in todo.work) and not as_json:
            _say_window(workspace, model, note, light=True)
        print_dry_run(todo, as_json)
        return 0
    tally = Tally(todo)
    with one_interrupt():
        if todo.work:
            branches = _branches(todo, workspace)
            # The calls first: they need no model, so no missing model, key or server loses them.
            room = Room(workspace.staging_dir, workspace.config.extract.max_staging)
            tally.keep(_keep_remembered(todo, ledger, workspace.staging_dir, as_json, branches, room))
            if gateway is None:
                gateway = _gateway(workspace, model, any(w.chunk.needs_model for w in todo.work),
                                   session_agent)
            with progress.reporter(progress_mode, "extract", machine_output=as_json, phase="extract",
                                   unit="chunks", total=len(todo.work)) as shown:
                if not isinstance(gateway, ModelName):
                    _say_window(workspace, gateway.model, shown.say, light=False)
                _extract_all(todo, tally, gateway, ledger, workspace, version, shown,
                             spend.run_budget(workspace, background), branches, room)
        print_summary(tally, as_json)
    if tally.interrupted:
        return EXIT_TERMINATED if tally.terminated else EXIT_INTERRUPTED
    return 1 if tally.failed or tally.fatal else 0


Branches = dict[tuple[str, tuple[int, int]], Branch | None]  # (session key, chunk range) → branch


def _branches(todo: Plan, workspace: Workspace) -> Branches:
    """The git branch of every chunk's items, resolved here once (not in the pool's threads)."""
    resolver = BranchResolver(workspace.root)
    return {(w.key, w.chunk.range): resolver.resolve(w.info, w.chunk.branch) for w in todo.work}


def _stale(span: Span, version: str, model: str) -> bool:
    """Extracted with another prompt or model; a span of `memcli_remember` calls alone was staged
    without either, so only a change of that mapping makes it stale."""
    if span.model == remember.MODEL:
        return span.prompt_version != remember.VERSION
    return span.prompt_version != version or span.model != model


def _chosen(workspace: Workspace, model: str | None, session_agent: str | None) -> str | None:
    try:
        return choose_model(workspace, "extract", model, session_agent=session_agent).model
    except ConfigError:
        return None


def _say_window(workspace: Workspace, model: str | None, say: Callable[[str], None], light: bool) -> None:
    """Say once, at the start, when the window the chunks are cut for is memcli's assumption."""
    chosen = _chosen(workspace, model, None)
    assumed = assumed_window(workspace, chosen, light=light) if chosen else None
    if assumed:
        say(f"extract: {assumed}")


def _chunk_tokens(workspace: Workspace, model: str | None, configured: int, light: bool = False,
                  session_agent: str | None = None) -> int:
    """extract.chunk_tokens, clamped so that instructions + chunk + answer fit the model's context
    window (see memcli.llm.context_tokens; `light`: from litellm's table without importing it).
    No model configured (a dry run, or only `memcli_remember` calls): the configured window, if
    any, else the default one."""

    chosen = _chosen(workspace, model, session_agent)
    try:
        context = context_tokens(workspace, chosen, light=light) if chosen else None
    except MissingExtra:
        context = None
    if context is None:
        context = workspace.config.memory.context_tokens or DEFAULT_CONTEXT
    return prompt.chunk_budget(context, configured)


def _gateway(workspace: Workspace, model: str | None, needed: bool,
             session_agent: str | None = None) -> Gateway | AgentGateway | ModelName:
    """The gateway when some chunk needs the model; else only the model's name, for the ledger (a
    run of `memcli_remember` calls alone needs no model, nor a configured one). A model memcli
    picked (none was set) is named once on stderr."""

    if needed:
        choice = choose_model(workspace, "extract", model, session_agent=session_agent)
        gateway = Gateway.from_config(workspace, "extract", choice.model)
        if choice.notice("extract"):
            print(f"extract: {choice.notice('extract')}", file=sys.stderr)
        return gateway
    try:
        return ModelName(resolve_model(workspace, "extract", model, session_agent=session_agent))
    except ConfigError:
        return ModelName(remember.MODEL)


@frozen
class ModelName:
    """Stands in for the gateway when no chunk calls the model."""

    model: str


def _extract_all(todo: Plan, tally: Tally, gateway: Gateway | ModelName, ledger: Ledger, workspace: Workspace,
                 version: str, shown: progress.Reporter, budget: Budget, branches: Branches,
                 room: Room) -> None:
    run_id = f"extract-{uuid.uuid4().hex[:12]}"
    started = history.now()
    # Recorded as running first, so a killed run shows as interrupted in `memcli status`.
    history.record(workspace, "extract", {"run_id": run_id, "started_at": started, "result": "running",
                                          "pid": os.getpid(), "host": socket.gethostname()})
    gate = pool.Gate(budget.reached)
    work = functools.partial(_one, gateway=gateway, ledger=ledger, staging_dir=workspace.staging_dir,
                             version=version, gate=gate, branches=branches, room=room)
    try:
        workers = min(workspace.config.extract.concurrency, getattr(gateway, "workers", None) or 1 << 30)
        chunks.ask_all(todo.work, work, workers, gate, tally, shown)
        if tally.interrupted:  # what was received is kept; the rest is extracted next time
            tally.status["skipped"] += len(todo.work) - sum(tally.status.values())
    finally:
        history.record(workspace, "extract", _history_entry(run_id, started, tally))


def _history_entry(run_id: str, started: str, tally: Tally) -> dict[str, object]:
    failed = bool(tally.failed or tally.fatal)
    done = tally.status["done"] + tally.status["recovered"]
    first = tally.failures[0] if tally.failures else None
    error = tally.fatal or (f"{tally.failed} chunk(s) failed: {first}" if first else None)
    return {
        "run_id": run_id, "started_at": started, "finished_at": history.now(),
        "result": "interrupted" if tally.interrupted else "failed" if failed else (
            "done" if done == len(tally.plan.work) else "partial"),
        "error": error, "counts": {"chunks": done, **tally.items},
        "prompt_tokens": tally.prompt_tokens, "completion_tokens": tally.completion_tokens,
        "cost_usd": tally.cost, **({"note": f"stopped: {tally.stopped}"} if tally.stopped else {}),
    }


def _remembered(w: Work, staging_dir: Path, ledger: Ledger, branches: Branches,
                room: Room) -> tuple[list[str], ExtractedItems, bool]:
    """Stage the chunk's `memcli_remember` calls not staged yet, one file each (Source = the call's
    entry), each then marked in the ledger: (the ids of all its calls, the items newly staged,
    whether all of them are staged now: False when staging is full, `room`).
    The ids are fixed by the calls, so a run killed between a file and its mark rewrites the same
    file; once marked, a call is never staged again (consolidation may have used it already)."""
    ids: list[str] = []
    items = ExtractedItems()
    done = ledger.staged(w.key)
    for call in w.chunk.remembered:
        staging = remember.staging_for(w.key, w.info.session_id, w.info.agent, call,
                                       branches.get((w.key, w.chunk.range)))
        ids.append(staging.id)
        if staging.id in done:
            continue
        if not room.take(staging_path(staging_dir, staging.id)):
            return ids, items, False
        write_staging(staging_dir, staging)
        ledger.mark_staged(w.key, staging.id)
        items = _merged(items, staging.items)
    return ids, items, True


def _keep_remembered(todo: Plan, ledger: Ledger, staging_dir: Path, quiet: bool,
                     branches: Branches, room: Room) -> ExtractedItems:
    """Stage every `memcli_remember` call of the plan before any model is asked for: a light
    install (no model, no litellm) or a failing model still keeps what the user asked to keep."""
    items = ExtractedItems()
    for w in todo.work:
        _ids, kept, complete = _remembered(w, staging_dir, ledger, branches, room)
        items = _merged(items, kept)
        if not complete:
            break  # staging is full: the chunks say so when the pool reaches them
    count = sum(len(getattr(items, k)) for k in ExtractedItems.model_fields)
    if count and not quiet:
        note(f"extract: staged {count} memcli_remember call(s), which need no model")
    return items


def _merged(a: ExtractedItems, b: ExtractedItems) -> ExtractedItems:
    """Both lists of items, for the run's counts (a chunk may stage more than one file's bound)."""
    return ExtractedItems.model_construct(**{k: getattr(a, k) + getattr(b, k)
                                             for k in ExtractedItems.model_fields})


def _full(w: Work, gate: pool.Gate, room: Room) -> Result:
    """A chunk staging has no room for: not recorded, so the next run stages it; no other starts."""
    gate.stop(room.full or "staging is full")
    return Result(w, "skipped")


def _one(w: Work, gateway: Gateway | ModelName, ledger: Ledger, staging_dir: Path, version: str,
         gate: pool.Gate, branches: Branches, room: Room) -> Result:
    if gate.abort.is_set():
        return Result(w, "skipped")
    start, end = w.chunk.range
    source = Source(session_id=w.info.session_id, range=(start, end))
    if not w.chunk.needs_model:
        with gate.writing() as allowed:
            if not allowed:
                return Result(w, "skipped")
            ids, kept, complete = _remembered(w, staging_dir, ledger, branches, room)
            if not complete:
                return _full(w, gate, room)
            # Recorded under the mapping that staged it, not the prompt and model: `--stale --redo`
            # after a prompt or model change must not stage (and consolidate) these calls again.
            ledger.record(w.key, w.info.session_id, w.first_entry, w.last_entry, start, end,
                          remember.VERSION, remember.MODEL, ids[0] if ids else "")
        return Result(w, "done", kept)
    assert not isinstance(gateway, ModelName)
    messages = prompt.messages(w.info.agent, w.chunk)
    file_id = staging_id(w.key, source, version, gateway.model, messages[-1]["content"])
    existing = staging_path(staging_dir, file_id)
    if existing.is_file():  # written by a run killed before it could record it
        try:
            items = StagingFile.model_validate_json(existing.read_bytes()).items
        except ValueError:
            items = None  # not ours to judge here: consolidation reports a bad staging file
        if items is not None:
            with gate.writing() as allowed:
                if not allowed:
                    return Result(w, "skipped")
                ids, kept, complete = _remembered(w, staging_dir, ledger, branches, room)
                if not complete:
                    return _full(w, gate, room)
                ledger.record(w.key, w.info.session_id, w.first_entry, w.last_entry, start, end, version,
                              gateway.model, file_id)
            return Result(w, "recovered", _merged(items, kept))
    if not room.left():  # no model call whose answer could not be kept
        return _full(w, gate, room)
    try:
        answer, usage = chunks.ask(gateway, messages, ExtractedItems, gate,
                                   max_tokens=prompt.answer_tokens(gateway.context_tokens))
    except chunks.ChunkFailed as failed:
        return Result(w, failed.status, usage=failed.usage, error=str(failed))
    # junk is refused here, before the empty check: an answer of junk alone stages nothing
    items, dropped = sifted(redacted_items(answer))
    with gate.writing() as allowed:
        if not allowed:  # answered after Ctrl-C: not recorded, so the next run asks again
            return Result(w, "skipped")
        ids, kept, complete = _remembered(w, staging_dir, ledger, branches, room)
        if not complete or not (_empty(items) or room.take(existing)):
            return _full(w, gate, room)  # paid for, but not kept: the bound holds
        if _empty(items):
            # Nothing to consolidate: the ledger alone remembers the span, so an empty answer never
            # counts toward the consolidation trigger nor costs a consolidation run.
            ledger.record(w.key, w.info.session_id, w.first_entry, w.last_entry, start, end, version,
                          gateway.model, ids[0] if ids else "")
            return Result(w, "done", kept, usage, dropped=dropped)
        staging = StagingFile(id=file_id, agent=w.info.agent, source=source, model=gateway.model,
                              prompt_version=version, created_at=dt.datetime.now(dt.UTC),
                              usage=Usage(prompt_tokens=usage.prompt_tokens,
                                          completion_tokens=usage.completion_tokens,
                                          cost_usd=usage.cost_usd),
                              items=items, provenance=Provenance.model_validate(provenance_of(w.chunk)),
                              branch=branches.get((w.key, w.chunk.range)))
        write_staging(staging_dir, staging)
        ledger.record(w.key, w.info.session_id, w.first_entry, w.last_entry, start, end, version,
                      gateway.model, file_id)
    return Result(w, "done", _merged(items, kept), usage, dropped=dropped)


def _empty(items: ExtractedItems) -> bool:
    return not (items.decisions or items.discussions or items.attempts or items.requests)


def redacted_items(items: ExtractedItems) -> ExtractedItems:
    """The model saw only redacted text, but may still echo something secret-shaped: staging
    feeds records that are committed, so its strings are redacted too."""
    data = items.model_dump()
    for kind in data.values():
        for item in kind:
            for name, value in item.items():
                if isinstance(value, str):
                    limit = 200 if name == "title" else 2_000  # a marker can be longer than a secret
                    item[name] = redact(value)[0][:limit]
    return ExtractedItems.model_validate(data)
