"""What `memcli import` prints: the summary, and the dry run (text or JSON)."""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Any

from memcli.extract.prepare import estimate_tokens
from memcli.extract.report import Counts, dropped_note
from memcli.imports import prompt
from memcli.imports.plan import Document, Plan, Work
from memcli.plural import counted, plural
from memcli.values import frozen

if TYPE_CHECKING:
    from memcli.llm import CallUsage
    from memcli.staging import ExtractedItems
_SHOWN = 100  # characters of a block shown in the dry run


@frozen
class Result:
    """What one chunk came to, added to the run's Tally."""

    work: Work
    status: str  # done | failed | error | skipped
    items: ExtractedItems | None = None
    files: int = 0
    usage: CallUsage | None = None
    error: str | None = None
    dropped: int = 0  # the model's items that said nothing (memcli.staging.sifted)


class Tally(Counts):
    plan: Plan

    def __init__(self, todo: Plan, recovered: int = 0) -> None:
        super().__init__(todo, ("done", "failed", "error", "skipped"))
        self.recovered = recovered  # chunks a killed run had written, finished without the model
        self.files = 0

    def add(self, result: Result) -> None:
        """One chunk's outcome (memcli.llm.chunks.ask_all adds each as it comes)."""
        r = result
        self.files += r.files
        self.count(r.work.source.id, r.work.chunk.range, r.status, r.items, r.usage, r.error, r.dropped)

    def as_dict(self) -> dict[str, Any]:
        docs = self.plan.documents
        return {
            "documents": [_document(d) for d in docs], "chunks": len(self.plan.work),
            **{f"chunks_{k}": v for k, v in self.status.items()}, "chunks_recovered": self.recovered,
            "items": self.items, "items_dropped": self.dropped, "staging_files": self.files,
            "prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens,
            "calls": self.calls, "cost_usd": self.cost,
            "redactions": self.plan.redactions, "failures": self.failures, "error": self.fatal,
            "interrupted": self.interrupted, "stopped": self.stopped,
        }


def _document(d: Document, text: bool = False) -> dict[str, Any]:
    src = d.source
    row: dict[str, Any] = {"source": src.id, "kind": src.kind, "path": str(src.path), "scope": d.scope,
                           "new": [{"lines": [p.start, p.end], **({"text": p.text} if text else {})}
                                   for p in d.new],
                           "imported": d.imported, "left_out": list(d.left_out), "error": d.error}
    return row


def _out(text: str = "") -> None:
    sys.stdout.write(text + "\n")


def print_summary(tally: Tally, as_json: bool, looked: list[str] | None = None) -> None:
    """`looked`: where discovery looked (None: the files were named), said when it found nothing."""
    if as_json:
        _out(json.dumps({**tally.as_dict(), **({"looked_in": looked} if looked is not None else {})},
                        ensure_ascii=False, indent=2))
        return
    docs, s = tally.plan.documents, tally.status
    changed = sum(1 for d in docs if d.new)
    broken = [d for d in docs if d.error]
    if not docs:
        _nothing_found(looked)
        return
    _out(f"documents: {len(docs)} ({changed} with new or changed blocks, "
         f"{len(docs) - changed - len(broken)} up to date, {len(broken)} unreadable)")
    for d in broken:
        _out(f"  unreadable {d.source.id}: {d.error}")
    new, old = sum(len(d.new) for d in docs), sum(d.imported for d in docs)
    _out(f"blocks:    {new} to import ({old} imported before)")
    _out(f"chunks:    {len(tally.plan.work)} ({s['done']} imported, {tally.recovered} recovered, "
         f"{s['failed'] + s['error']} failed, {s['skipped']} not started)")
    _out("items:     " + counted(tally.items)
         + f" in {plural(tally.files, 'staging file')}" + dropped_note(tally))
    cost = "unknown" if tally.cost is None else f"${tally.cost:.4f}"
    _out(f"tokens:    {tally.prompt_tokens:,} in, {tally.completion_tokens:,} out in "
         f"{plural(tally.calls, 'call')}; cost {cost}")
    if tally.plan.redactions:
        _out(f"redacted:  {tally.plan.redactions} secret(s) before sending")
    for line in tally.failures:
        _out(f"failed:    {line} (left for the next run)")
    if tally.files:
        _out("next:      `memcli consolidate` folds the staged items into memory in one reviewed commit")
    if tally.fatal:
        sys.stderr.write(f"Error: {tally.fatal}\n")
    if tally.stopped:
        sys.stderr.write(f"Stopped: {tally.stopped}; the {s['skipped']} chunk(s) not started wait for the "
                         "next run.\n")
    if tally.interrupted:
        sys.stderr.write(f"Interrupted: kept the {s['done']} chunk(s) already answered; the next run "
                         "imports the rest.\n")


def _short(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= _SHOWN else line[: _SHOWN - 1] + "…"


def _nothing_found(looked: list[str] | None) -> None:
    if looked is None:
        _out("No memory or instruction files among the PATHS given.")
        return
    _out("No memory or instruction files found for this workspace. Looked in:")
    for line in looked:
        _out(f"  {line}")
    _out("Name other files as PATHS (memcli import notes.md, or a folder of Markdown files).")


def print_dry_run(todo: Plan, as_json: bool, looked: list[str] | None = None) -> None:
    chunks: list[dict[str, Any]] = []
    for w in todo.work:
        messages = prompt.messages(w)
        chunks.append({"source": w.source.id, "kind": w.source.kind, "range": list(w.chunk.range),
                       "tokens": estimate_tokens(messages[1]["content"]), "redactions": w.chunk.redactions,
                       "messages": messages})
    if as_json:
        _out(json.dumps({"prompt_version": prompt.version(),
                         "documents": [_document(d, text=True) for d in todo.documents],
                         "chunks": chunks, **({"looked_in": looked} if looked is not None else {})},
                        ensure_ascii=False, indent=2))
        return
    if not todo.documents:
        _nothing_found(looked)
        return
    new = sum(len(d.new) for d in todo.documents)
    _out(f"# dry run: {new} block(s) of {len(todo.documents)} document(s) would be staged, in "
         f"{len(chunks)} model call(s); nothing is sent or written")
    for d in todo.documents:
        _out(f"\n{d.source.id} · {d.source.kind} · {d.source.path}")
        if d.error:
            _out(f"  unreadable: {d.error}")
            continue
        if d.scope:
            _out(f"  scope: {d.scope}")
        for p in d.new:
            where = f"lines {p.start}-{p.end}" if p.end != p.start else f"line {p.start}"
            _out(f"  + {where}: {_short(p.text)}")
        if d.imported:
            _out(f"  = {d.imported} block(s) imported before, unchanged")
        if not d.new and not d.imported and not d.left_out:
            _out("  (nothing to import)")
        for line in d.left_out:
            _out(f"  - left out: {line}")
    if chunks:
        redacted = sum(c["redactions"] for c in chunks)
        _out(f"\n{len(chunks)} model call(s), ~{sum(c['tokens'] for c in chunks):,} tokens sent in all"
             + (f", {redacted} secret(s) redacted first" if redacted else "")
             + "; `--dry-run --json` shows each call's messages")
