"""What `memcli extract` prints: the final summary, the dry run, the stale list (text or JSON)."""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Any

from memcli.extract import prompt
from memcli.extract.plan import Plan, Work
from memcli.extract.prepare import estimate_tokens
from memcli.llm.usage import CallUsage
from memcli.plural import counted, plural
from memcli.values import frozen

if TYPE_CHECKING:
    from memcli.extract.ledger import Span
    from memcli.staging import ExtractedItems

KINDS = ("decisions", "discussions", "attempts", "requests")


@frozen
class Result:
    """What one chunk came to, added to the run's Tally."""

    work: Work
    status: str  # done | recovered | failed | error | skipped
    items: ExtractedItems | None = None
    usage: CallUsage | None = None
    error: str | None = None
    dropped: int = 0  # the model's items that said nothing (memcli.staging.sifted)


class Counts:
    """What a run of model calls over chunks adds up to: extract's tally, and the import's."""

    def __init__(self, todo: Any, statuses: tuple[str, ...]) -> None:
        self.plan = todo
        self.status = dict.fromkeys(statuses, 0)
        self.items = dict.fromkeys(KINDS, 0)
        self.dropped = 0  # items the model gave that said nothing (memcli.staging.sifted)
        self.prompt_tokens = self.completion_tokens = self.calls = 0
        self.cost: float | None = None
        self.failures: list[str] = []
        self.fatal: str | None = None
        self.interrupted = False  # Ctrl-C: what was received is kept, the rest waits for the next run
        self.terminated = False  # ... and the interrupt was SIGTERM (memcli.boundary.terminable)
        self.stopped: str | None = None  # the run's budget was spent: the chunks not started wait

    @property
    def failed(self) -> int:
        return self.status["failed"]

    @property
    def usage(self) -> CallUsage:
        """What the run's calls have used so far."""
        return CallUsage(self.prompt_tokens, self.completion_tokens, self.cost, self.calls)

    def count(self, source: str, span: tuple[int, int], status: str, items: ExtractedItems | None,
              usage: CallUsage | None, error: str | None, dropped: int = 0) -> None:
        """One chunk's outcome: the chunk `span` of `source` (a session, a document)."""
        self.status[status] += 1
        self.dropped += dropped
        if items is not None:
            for kind in KINDS:
                self.items[kind] += len(getattr(items, kind))
        if usage is not None:
            self.prompt_tokens += usage.prompt_tokens
            self.completion_tokens += usage.completion_tokens
            self.calls += usage.calls
            if usage.cost_usd is not None:
                self.cost = (self.cost or 0.0) + usage.cost_usd
        if status == "failed":
            self.failures.append(f"{source}:{span[0]}-{span[1]}: {error}")
        elif status == "error" and self.fatal is None:
            self.fatal = error


class Tally(Counts):
    plan: Plan

    def __init__(self, todo: Plan) -> None:
        super().__init__(todo, ("done", "recovered", "failed", "error", "skipped"))
        self.redactions = sum(w.chunk.redactions for w in todo.work)

    def add(self, result: Result) -> None:
        """One chunk's outcome (memcli.llm.chunks.ask_all adds each as it comes)."""
        r = result
        self.count(r.work.info.session_id, r.work.chunk.range, r.status, r.items, r.usage, r.error, r.dropped)

    def keep(self, items: ExtractedItems) -> None:
        """Items staged outside a chunk's own result (`memcli_remember` calls staged up front)."""
        for kind in KINDS:
            self.items[kind] += len(getattr(items, kind))

    def as_dict(self) -> dict[str, Any]:
        p = self.plan
        return {
            "sessions": p.sessions, "up_to_date": p.up_to_date, "waiting": p.waiting,
            "reextracted": [{"session_id": s, "reason": r} for s, r in p.reset],
            "unreadable": p.unreadable, "chunks": len(p.work),
            **{f"chunks_{k}": v for k, v in self.status.items()},
            "items": self.items, "items_dropped": self.dropped, "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens, "calls": self.calls, "cost_usd": self.cost,
            "redactions": self.redactions, "failures": self.failures, "error": self.fatal,
            "interrupted": self.interrupted, "stopped": self.stopped,
        }


def dropped_note(counts: Counts) -> str:
    """What the items line adds when the model gave items that said nothing."""
    if not counts.dropped:
        return ""
    return f"; {counts.dropped} dropped (no words, or a name out of the schema)"


def _out(text: str = "") -> None:
    sys.stdout.write(text + "\n")


def print_summary(tally: Tally, as_json: bool) -> None:
    if as_json:
        _out(json.dumps(tally.as_dict(), ensure_ascii=False, indent=2))
        return
    p, s = tally.plan, tally.status
    _out(f"sessions: {p.sessions} with new entries, {p.up_to_date} up to date, "
         f"{len(p.waiting)} still active (waiting)")
    for session_id, reason in p.reset:
        _out(f"  re-extracted {session_id}: the file {reason} since it was last extracted")
    for line in p.unreadable:
        _out(f"  unreadable {line}")
    _out(f"chunks:   {len(p.work)} ({s['done']} extracted, {s['recovered']} recovered, "
         f"{s['failed'] + s['error']} failed, {s['skipped']} not started)")
    _out("items:    " + counted(tally.items) + dropped_note(tally))
    cost = "unknown" if tally.cost is None else f"${tally.cost:.4f}"
    _out(f"tokens:   {tally.prompt_tokens:,} in, {tally.completion_tokens:,} out in "
         f"{plural(tally.calls, 'call')}; cost {cost}")
    if tally.redactions:
        _out(f"redacted: {tally.redactions} secret(s) before sending")
    for line in tally.failures:
        _out(f"failed:   {line} (left for the next run)")
    if tally.fatal:
        sys.stderr.write(f"Error: {tally.fatal}\n")
    if tally.stopped:
        sys.stderr.write(f"Stopped: {tally.stopped}; the {s['skipped']} chunk(s) not started wait for the "
                         "next run.\n")
    if tally.interrupted:
        kept = s["done"] + s["recovered"]
        sys.stderr.write(f"Interrupted: kept the {kept} chunk(s) already answered; the next run extracts "
                         "the rest.\n")


def print_dry_run(todo: Plan, as_json: bool) -> None:
    chunks: list[dict[str, Any]] = []
    for w in todo.work:
        messages = prompt.messages(w.info.agent, w.chunk)
        remembered = [{"range": [r.start, r.end], "kind": r.kind, "text": r.text, "why": r.why}
                      for r in w.chunk.remembered]
        needed = w.chunk.needs_model
        chunks.append({"session_id": w.info.session_id, "agent": w.info.agent, "path": str(w.info.path),
                       "range": list(w.chunk.range),
                       "tokens": estimate_tokens(messages[1]["content"]) if needed else 0,
                       "redactions": w.chunk.redactions, "model_call": needed,
                       "messages": messages if needed else [], "remembered": remembered})
    if as_json:
        _out(json.dumps({"prompt_version": prompt.version(), "waiting": todo.waiting,
                         "reextract": [{"session_id": s, "reason": r} for s, r in todo.reset],
                         "chunks": chunks}, ensure_ascii=False, indent=2))
        return
    _out(f"# dry run: {len(chunks)} chunk(s) from {todo.sessions} session(s); nothing is sent")
    sent = [c for c in chunks if c["model_call"]]
    if sent:
        _out("\n## system prompt (same for every chunk)\n")
        _out(sent[0]["messages"][0]["content"])
    for c in chunks:
        a, b = c["range"]
        if c["model_call"]:
            _out(f"\n## {c['session_id']} entries {a}-{b} ({c['agent']}, ~{c['tokens']} tokens, "
                 f"{c['redactions']} redacted)\n")
            _out(c["messages"][1]["content"])
        else:
            _out(f"\n## {c['session_id']} entries {a}-{b} ({c['agent']}): no model call\n")
        for r in c["remembered"]:
            _out(f"(staged without a model: memcli_remember {r['kind']} at entries "
                 f"{r['range'][0]}-{r['range'][1]}: {r['text']})")
    for session_id, reason in todo.reset:
        _out(f"\n(would re-extract {session_id}: the file {reason})")
    if todo.waiting:
        _out(f"\n(still active, waiting: {', '.join(todo.waiting)})")


def print_stale(spans: list[Span], version: str, model: str, as_json: bool) -> None:
    rows = [{"session_id": s.session_id, "range": [s.start, s.end], "prompt_version": s.prompt_version,
             "model": s.model, "staging_id": s.staging_id, "file": s.key.rsplit("#", 1)[0]} for s in spans]
    rows.sort(key=lambda r: (r["session_id"], r["range"][0]))
    if as_json:
        _out(json.dumps({"prompt_version": version, "model": model, "stale": rows}, ensure_ascii=False,
                        indent=2))
        return
    if not rows:
        _out(f"no stale spans (every span was extracted with {version} and {model})")
        return
    _out(f"{len(rows)} span(s) extracted differently from now ({version}, {model}):")
    for r in rows:
        _out(f"  {r['session_id']}:{r['range'][0]}-{r['range'][1]}  {r['prompt_version']}  {r['model']}")
    _out("re-extract them with: memcli extract --stale --redo")
