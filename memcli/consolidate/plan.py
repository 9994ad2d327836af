"""The integration input laid out within the context budget (memcli.consolidate.budget).

When everything fits — every staging item, the summary, every decision and request in full, the
reports — the model gets exactly that, in one message (small memories lose nothing). Otherwise:

- the summary stays in full; the existing decisions and requests become a catalogue, one line each
  (or, when even that is too long, a count and a pointer to memory_search); the knowledge-candidate
  report is compact and capped (memcli.consolidate.reports); the gc-report comes with the GC phase,
  compact and capped to the room the done batches leave;
- the staging items come in batches that fit, in input order; once every item of a batch has its
  disposition (`finish_phase`), the conversation starts over from the instructions with the next
  batch and a short note on what the batches before it came to (items, dispositions, records
  changed): all within the one run, ledger, scratch copy and commit;
- each batch comes with the full text of the records most related to its items (memcli.consolidate
  .related), read from the scratch copy when the batch is shown, so earlier batches' writes count;
- after the last batch, its text gives way to that note too, and the GC phase follows.

A single item larger than the room left for a batch fails the run, before any model call, with
its size and the window: staging is kept, nothing is left out silently.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from memcli.consolidate import prompts, related, reports
from memcli.consolidate.budget import Budget, tokens
from memcli.consolidate.dispositions import Item, number_items
from memcli.consolidate.inputs import (
    KNOWLEDGE_NOTE,
    StagingSet,
    build_input,
    gc_section,
    knowledge_section,
    staging_section,
)
from memcli.errors import MemcliError
from memcli.fence import fence
from memcli.workspace import SUMMARY_PATH, Workspace

_TOOLS_NOTE = ("Not every record is shown in full here: memory_search finds more (by words), memory_read "
               "reads any record by its path. Look before writing a record that may already exist.\n")
PROGRESS_LINES = 20  # records named in the note on the batches done
CATALOGUE_SHARE = 2  # the catalogue may take at most half of the room left after summary and reports
KNOWLEDGE_SHARE = 4  # the knowledge-candidate report: at most a quarter of the input
_GC_LATER = "# GC material (gc-report)\nShown with phase 2 (GC), once every staging item is integrated.\n"


class TooLarge(MemcliError):
    """The context window cannot hold the fixed prompt, the summary and one staging item."""


@dataclass
class InputPlan:
    ws: Workspace  # the scratch copy the model works on
    staging: StagingSet
    budget: Budget
    batches: list[list[Item]]
    shared: str  # what every call keeps: the memory overview and the reports (all of it when `full`)
    full: bool
    gc_report: dict[str, Any] | None = None  # shown with the GC phase when not `full`
    catalogued: bool = True  # every record has a catalogue line in `shared`
    room: int = 0  # tokens for one batch: its staging items and its related records
    fields: dict[str, dict[str, Any]] = field(default_factory=dict)  # item id → its staging fields

    def first(self, n: int = 0, progress: str = "") -> str:
        """The input of the first user message while batch `n` is integrated (`progress`: the note on
        the batches done before it)."""
        return self.shared if self.full else progress + self.batch(n) + "\n" + self.shared

    def done(self, progress: str) -> str:
        """The first message's input once every batch is done: the GC phase follows."""
        return progress + "\n" + self.shared

    def progress(self, upto: int, ledger: Any, journal: Any) -> str:
        """What batches 1..`upto` came to, in a few lines: their text gives way to the next batch."""
        items = [item for batch in self.batches[:upto] for item in batch]
        if not items:
            return ""
        acts = Counter(ledger.done[i.id].action for i in items if i.id in ledger.done)
        changed = list(dict.fromkeys(f"- {e.op} {e.path}\n" for e in journal))
        more = f"- and {len(changed) - PROGRESS_LINES} more\n" if len(changed) > PROGRESS_LINES else ""
        which = f"Batches 1–{upto}" if upto > 1 else "Batch 1"
        span = f"{items[0].id}–{items[-1].id}"
        return (f"# Done so far in this run\n{which} of {len(self.batches)}: items {span} "
                f"all have their disposition ({acts['integrated']} integrated, {acts['dropped']} dropped); "
                "their text is left out to make room. Records this run changed so far (read one with "
                "memory_read before writing near it):\n"
                + ("".join(changed[:PROGRESS_LINES]) + more if changed else "- none\n") + "\n")

    def batch(self, n: int) -> str:
        items = self.batches[n]
        ids = {item.id for item in items}
        where = (f"; batch {n + 1} of {len(self.batches)}, the next comes after finish_phase"
                 if len(self.batches) > 1 else "")
        staged = staging_section(self.staging, ids, where)
        rest = self.room - tokens(staged) - tokens(_TOOLS_NOTE) - 50  # headers
        queries = [related.item_query(self.fields[item.id]) for item in items]
        found = related.related_paths(self.ws, queries)
        full, left = related.within(rest, found, self._record, tokens)
        lines: list[str] = []
        if left and not self.catalogued:
            lines, _ = related.within(rest - sum(tokens(t) for t in full), left,
                                      lambda rel: related.catalogue_line(self.ws, rel), tokens)
        parts = [staged, "# Existing records related to these items (full text)\n"
                 + ("".join(full) if full else "No existing decision or request matches these items.\n")]
        if lines:
            parts.append("# More related records (not shown in full)\n" + "".join(lines))
        parts.append(_TOOLS_NOTE)
        return "\n".join(parts)

    def gc_message(self) -> str:
        """The GC phase's user message: its prompt, after the gc-report when that was not shown yet."""
        gc = prompts.load("gc")
        if self.full or not self.gc_report:
            return gc if self.full else gc_section(None) + "\n" + gc
        body, left = reports.compact(self.gc_report, self.room - tokens(gc) - 100, tokens)
        note = (f"{left} entries of the report were left out to fit the context window; the next run's "
                "report names them again.\n" if left else "")
        return gc_section(self.gc_report, body) + note + "\n" + gc

    def _record(self, rel: str) -> str:
        return f"## {rel}\n" + fence(f"record {rel}", related.read(self.ws, rel), "markdown")


def _overview(ws: Workspace, lines: list[str] | None, total: int) -> str:
    parts = ["# Existing memory\n"]
    if ws.abspath(SUMMARY_PATH).is_file():
        text = related.read(ws, SUMMARY_PATH)
        parts.append(f"## {SUMMARY_PATH}\n" + fence(f"record {SUMMARY_PATH}", text, "markdown"))
    if lines is not None:
        parts.append(f"## Catalogue: every decision and request ({total}), one line each\n" + "".join(lines))
    else:
        parts.append(f"## Decisions and requests\n{total} exist, too many to list within the context window: "
                     "the records related to each staging item are shown with it; find others with "
                     "memory_search.\n")
    return "\n".join(parts)


def _batches(staging: StagingSet, numbered: list[tuple[Item, dict[str, Any]]], cap: int,
             most: int) -> list[list[Item]]:
    """Consecutive items, as many per batch as fit `cap` tokens; one item alone may use `most`."""
    out: list[list[Item]] = []
    for item, _ in numbered:
        if out:
            ids = {i.id for i in out[-1]} | {item.id}
            if tokens(staging_section(staging, ids, numbered=numbered)) <= cap:
                out[-1].append(item)
                continue
        alone = tokens(staging_section(staging, {item.id}, numbered=numbered))
        if alone > most:
            raise TooLarge(
                f"staging item {item.label()} alone is about {alone} tokens, more than the {most} the "
                "context window leaves for staging (memory.context_tokens sets the window; a larger model "
                "for consolidation has a larger one); staging is kept")
        out.append([item])
    return out


def plan(ws: Workspace, staging: StagingSet, candidates: dict[str, Any] | None,
         gc_report: dict[str, Any] | None, budget: Budget) -> InputPlan:
    numbered = number_items(staging)
    items = [item for item, _ in numbered]
    whole = build_input(ws, staging, candidates, gc_report)
    if tokens(whole) <= budget.input:
        return InputPlan(ws, staging, budget, [items], whole, full=True)
    body, left = reports.compact(candidates or {"candidates": [], "sources": []},
                                 budget.input // KNOWLEDGE_SHARE, tokens)
    note = f"{left} entries were left out to fit the context window.\n" if left else ""
    notes = knowledge_section(candidates, body) + note + "\n" + _GC_LATER + "\n" + KNOWLEDGE_NOTE
    paths = related.record_paths(ws)
    lines = [related.catalogue_line(ws, rel) for rel in paths]
    bare = tokens(_overview(ws, None, len(paths))) + tokens(notes)
    catalogued = sum(tokens(line) - 4 for line in lines) <= (budget.input - bare) // CATALOGUE_SHARE
    shared = _overview(ws, lines if catalogued else None, len(paths)) + "\n" + notes
    room = budget.input - tokens(shared)
    if room <= 0:
        raise TooLarge(
            f"the context window cannot hold the consolidation prompt with the summary and reports "
            f"({budget.describe()}); set memory.context_tokens to the model's real window, or use a model "
            "with a larger one for consolidation; staging is kept")
    batches = _batches(staging, numbered, room // 2, room) if items else [[]]
    return InputPlan(ws, staging, budget, batches, shared, full=False, gc_report=gc_report,
                     catalogued=catalogued, room=room, fields={item.id: f for item, f in numbered})
