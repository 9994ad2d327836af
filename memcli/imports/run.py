"""`memcli import`: the documents' new blocks → the extract model → staging, with exact Sources.

One staging file per span of lines the items came from (attribute.py), carrying the document's id
and those lines as its Source, the document's kind as its agent, and who said the lines (the user
for files people keep, the agent for an agent's own memory) as its provenance. Consolidation then
folds them in like any staging: linted, trust rules, one reviewed commit. The files themselves are
only read.
"""

from __future__ import annotations

import datetime as dt
import functools
from pathlib import Path
from typing import TYPE_CHECKING

from memcli import progress
from memcli.agents.documents.discovery import Found, discover, kind_of, looked_in, name
from memcli.agents.documents.kinds import KINDS
from memcli.agents.documents.ledger import Ledger
from memcli.agents.documents.reader import read_text
from memcli.boundary import one_interrupt
from memcli.errors import EXIT_INTERRUPTED, EXIT_TERMINATED, ConfigError, UsageError
from memcli.extract.run import redacted_items  # the model's strings, redacted as extract's are
from memcli.imports import attribute, prompt
from memcli.imports.plan import Plan, Work, plan
from memcli.imports.report import Result, Tally, print_dry_run, print_summary
from memcli.llm import (
    DEFAULT_CONTEXT,
    Gateway,
    MissingExtra,
    assumed_window,
    chunks,
    context_tokens,
    pool,
    resolve_model,
    spend,
)
from memcli.provenance import instruction_sentences, role_spans
from memcli.records.models import Source
from memcli.staging import (
    ExtractedItems,
    Provenance,
    StagingFile,
    Untrusted,
    Usage,
    sifted,
    staging_id,
    staging_path,
    write_staging,
)
from memcli.transcript.base import SessionReadError

if TYPE_CHECKING:
    from memcli.llm import CallUsage
    from memcli.workspace import Workspace

_SUFFIXES = (".md", ".mdc")
_NAMED = (".cursorrules", ".windsurfrules")


def run(workspace: Workspace, *, paths: list[Path] | None = None, kind: str | None = None,
        model: str | None = None, dry_run: bool = False, as_json: bool = False,
        progress_mode: str = "auto") -> int:
    found = documents(workspace, paths or [], kind)
    ledger = Ledger.open(workspace.state_dir)
    recovered = 0 if dry_run else recover(ledger, workspace.staging_dir)
    todo = plan(found, ledger, _budget(workspace, model), workspace.root)
    looked = None if paths else looked_in(workspace.root, workspace.config.sessions, [kind] if kind else None)
    if dry_run:
        print_dry_run(todo, as_json, looked)
        return 0
    tally = Tally(todo, recovered)
    if todo.work:
        gateway = Gateway.from_config(workspace, "extract", model)
        shown = progress.reporter(progress_mode, "import", machine_output=as_json, phase="import",
                                  unit="chunks", total=len(todo.work))
        with one_interrupt(), shown:
            assumed = assumed_window(workspace, gateway.model)
            if assumed:
                shown.say(f"import: {assumed}")
            _import_all(todo, tally, gateway, ledger, workspace.staging_dir,
                        workspace.config.extract.concurrency, shown, spend.run_budget(workspace))
    print_summary(tally, as_json, looked)
    if tally.interrupted:
        return EXIT_TERMINATED if tally.terminated else EXIT_INTERRUPTED
    return 1 if tally.failed or tally.fatal else 0


def documents(workspace: Workspace, paths: list[Path], kind: str | None) -> list[Found]:
    """The files to import: those discovered for the workspace, or those PATHS name (files, or
    the Markdown files in folders), of `kind` when given. A path that is missing or not text is a
    usage error before anything is read further."""
    if kind is not None and kind not in KINDS:
        raise UsageError(f"unknown --from {kind!r}; use one of: {', '.join(KINDS)}")
    root, config = workspace.root, workspace.config.sessions
    if not paths:
        if kind == "markdown":
            raise UsageError("--from markdown imports the Markdown files you name: give their PATHS")
        return discover(root, config, [kind] if kind else None)
    out: list[Found] = []
    for path in paths:
        if not path.exists():
            raise UsageError(f"{path}: no such file or folder")
        files = [path] if path.is_file() else _markdown_in(path)
        for file in files:
            if path.is_file():
                try:
                    read_text(file)
                except SessionReadError as exc:
                    raise UsageError(str(exc)) from None
            out.append(name(kind or kind_of(file, root, config), file, root, config))
    return list({f.path.resolve(): f for f in out}.values())


def _markdown_in(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file() and (p.suffix in _SUFFIXES or p.name in _NAMED)
                  and not any(part in ("node_modules", ".git") for part in p.parts))


def recover(ledger: Ledger, staging_dir: Path) -> int:
    """Finish what a killed run left: a chunk whose staging files are all written is marked done
    (no model call); one written in part has its files removed and is imported again."""
    done = 0
    for chunk in ledger.unfinished():
        files = [staging_path(staging_dir, s) for s in chunk.staging]
        if all(f.is_file() for f in files):
            ledger.finish(chunk.id)
            done += 1
            continue
        for f in files:
            f.unlink(missing_ok=True)
        ledger.drop(chunk.id)
    return done


def _budget(workspace: Workspace, model: str | None) -> int:
    """extract.chunk_tokens fitted to the model's window (no model configured: the configured or
    default window, as extract does)."""
    configured = workspace.config.extract.chunk_tokens
    try:
        context = context_tokens(workspace, resolve_model(workspace, "extract", model))
    except (ConfigError, MissingExtra):
        context = workspace.config.memory.context_tokens or DEFAULT_CONTEXT
    return prompt.chunk_budget(context, configured)


def _import_all(todo: Plan, tally: Tally, gateway: Gateway, ledger: Ledger, staging_dir: Path,
                workers: int, shown: progress.Reporter, budget: spend.Budget) -> None:
    gate = pool.Gate(budget.reached)
    work = functools.partial(_one, gateway=gateway, ledger=ledger, staging_dir=staging_dir, gate=gate)
    chunks.ask_all(todo.work, work, workers, gate, tally, shown)  # Ctrl-C: the rest is imported next time


def _one(w: Work, gateway: Gateway, ledger: Ledger, staging_dir: Path, gate: pool.Gate) -> Result:
    if gate.abort.is_set():
        return Result(w, "skipped")
    messages = prompt.messages(w)
    try:
        items, usage = chunks.ask(gateway, messages, ExtractedItems, gate,
                                  max_tokens=prompt.answer_tokens(gateway.context_tokens))
    except chunks.ChunkFailed as failed:
        return Result(w, failed.status, usage=failed.usage, error=str(failed))
    items, dropped = sifted(redacted_items(items))
    files = _staging(w, items, usage, gateway.model, messages[-1]["content"])
    blocks = [(p.start, p.end, p.fp) for p in w.pieces]
    with gate.writing() as allowed:
        if not allowed:  # answered after Ctrl-C: not recorded, so the next run asks again
            return Result(w, "skipped")
        chunk = ledger.begin(w.source.id, w.source.path, blocks, [f.id for f in files], prompt.version(),
                             gateway.model)
        for staging in files:
            write_staging(staging_dir, staging)
        ledger.finish(chunk)
    return Result(w, "done", items, len(files), usage, dropped=dropped)


def _staging(w: Work, items: ExtractedItems, usage: CallUsage, model: str, sent: str) -> list[StagingFile]:
    """One staging file per span the items came from; the call's usage on the first."""
    out = []
    now = dt.datetime.now(dt.UTC)
    for n, (span, found) in enumerate(attribute.group(items, w.pieces, w.chunk.range)):
        source = Source(session_id=w.source.id, range=span)
        pieces = [p for p in w.pieces if span[0] <= p.start and p.end <= span[1]]
        said = [(p.start, p.end, w.role) for p in pieces]
        # third-party text's instruction-shaped sentences, fenced as untrusted for consolidation
        flagged = [Untrusted(entry=p.start, text=s[:400]) for p in pieces if w.role == "injected"
                   for s in instruction_sentences(p.text)][:20]
        cost = Usage(prompt_tokens=usage.prompt_tokens, completion_tokens=usage.completion_tokens,
                     cost_usd=usage.cost_usd) if n == 0 else Usage()
        out.append(StagingFile(
            id=staging_id(w.source.id, source, prompt.version(), model, sent + found.model_dump_json()),
            agent=w.source.kind, source=source, model=model, prompt_version=prompt.version(), created_at=now,
            usage=cost, items=found,
            provenance=Provenance(roles=[tuple(r) for r in role_spans(said)], untrusted=flagged)))
    return out
