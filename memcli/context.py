"""`memcli context`: what an agent should always have in context (spec 2 §6).

`memory/summary.md`, then a `slug — description` index of knowledge with `model_invocation: true`,
cut to a token budget and closed by one line saying what was cut. Order, most useful first:
the summary (the project's current state), then knowledge by kind — rule, policy, howto, fact, term
(constraints an agent must obey before procedures, procedures before look-ups) — newest
`updated_at` first within a kind, slug as the tie-break, so the output is deterministic.
Broken records (the Linter's parse, schema and slug errors) are skipped and listed in JSON, never
fatal.
Decisions are not part of the resident context, so a replaced decision never appears.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from memcli.errors import EXIT_OK, UsageError
from memcli.recordtext import one_line
from memcli.slug import is_valid_slug
from memcli.tokens import TokenCounter, get_counter
from memcli.workspace import SUMMARY_PATH, Kind, Workspace

if TYPE_CHECKING:
    from memcli.lint.snapshot import Snapshot

__all__ = ["ContextResult", "Entry", "build_context", "one_line", "order_entries", "resident_entries", "run"]

KIND_ORDER = ("rule", "policy", "howto", "fact", "term")
FORMATS = ("markdown", "json")
MIN_BUDGET = 100
INDEX_HEADING = "## Knowledge index\n\nRead `knowledge/<slug>.md` when an entry applies to the task.\n\n"


@dataclass(frozen=True)
class Entry:
    slug: str
    kind: str
    description: str
    path: str
    stale: tuple[str, ...] = ()  # why its code anchors no longer hold (memcli.anchors)

    @property
    def line(self) -> str:
        mark = f" ⚠ stale anchor: {'; '.join(self.stale)}" if self.stale else ""
        return f"- {self.slug} — {self.description}{mark}\n"


@dataclass(frozen=True)
class ContextResult:
    text: str
    tokens: int
    budget: int
    tokenizer: str
    summary_path: str | None
    summary_truncated: bool
    shown: tuple[Entry, ...]
    cut: int  # knowledge entries left out
    skipped: tuple[str, ...] = field(default=())  # broken records

    def to_json_dict(self) -> dict[str, object]:
        return {
            "schema": "memcli.context",
            "version": 1,
            "budget_tokens": self.budget,
            "tokens": self.tokens,
            "tokenizer": self.tokenizer,
            "summary": {"path": self.summary_path, "truncated": self.summary_truncated},
            "knowledge": [
                {"slug": e.slug, "kind": e.kind, "description": e.description, "path": e.path,
                 **({"stale_anchors": list(e.stale)} if e.stale else {})}
                for e in self.shown
            ],
            "cut": {"knowledge": self.cut, "summary_truncated": self.summary_truncated},
            "skipped": list(self.skipped),
            "text": self.text,
        }


Row = tuple[str, str, "tuple[str, str, bool, dt.datetime | float] | None"]
# What the text is made of: entries with their anchor marks, skipped paths, summary lines, its path.
Resident = tuple[list[Entry], list[str], list[str], "str | None"]


def resident_rows(snapshot: Snapshot) -> list[Row]:
    """(slug, path, (kind, one-line description, model_invocation, updated_at) or None for a record
    that did not validate) of every knowledge record of `snapshot`."""
    rows: list[Row] = []
    for slug, path in snapshot.slugs[Kind.KNOWLEDGE].items():
        model = snapshot.record(path).model
        if model is None:
            rows.append((slug, path, None))
        else:
            rows.append((slug, path, (model.kind, one_line(model.description), model.model_invocation,
                                      model.updated_at)))
    return rows


def resident_entries(snapshot: Snapshot) -> tuple[list[Entry], list[str]]:
    """Every valid model-invoked knowledge entry in context order, and the broken paths skipped."""
    return order_entries(resident_rows(snapshot))


def order_entries(rows: Iterable[Row]) -> tuple[list[Entry], list[str]]:
    """`resident_entries` from `resident_rows`, however they were read (`updated_at` a datetime
    or its POSIX timestamp)."""
    entries: list[tuple[tuple[object, ...], Entry]] = []
    skipped: list[str] = []
    for slug, path, fields in rows:
        if fields is None or not is_valid_slug(slug):  # what `memcli lint` rejects is not shown
            skipped.append(path)
            continue
        kind, description, invoked, updated_at = fields
        if not invoked:  # the parser maps the old spelling `model_invokation` here
            continue
        entry = Entry(slug, kind, description, path)
        stamp = updated_at.timestamp() if isinstance(updated_at, dt.datetime) else updated_at
        entries.append(((KIND_ORDER.index(kind), -stamp, slug), entry))
    entries.sort(key=lambda pair: pair[0])
    return [e for _, e in entries], sorted(skipped)


def snapshot_anchors(snapshot: Snapshot, paths: Iterable[str]) -> dict[str, list[tuple[str, str | None]]]:
    """Path → the (path, symbol) anchors each of `paths` names, for those naming any."""
    from memcli.anchors import anchors_of

    out = {}
    for path in paths:
        meta = snapshot.record(path).meta
        anchors = anchors_of(meta) if meta and "anchors" in meta else []
        if anchors:
            out[path] = [(a.path, a.symbol) for a in anchors]
    return out


def with_anchor_marks(root: Path, entries: list[Entry],
                      anchors: dict[str, list[tuple[str, str | None]]]) -> list[Entry]:
    """Entries whose record names code that moved or went away carry why, so the agent reads the
    warning beside the claim (`anchors`: what `snapshot_anchors` gives). Records without anchors
    cost nothing."""
    from dataclasses import replace

    from memcli.anchors import Anchor, AnchorChecker

    named = [(n, [Anchor(path, symbol) for path, symbol in anchors[e.path]])
             for n, e in enumerate(entries) if e.path in anchors]
    if not named:
        return entries
    issues = AnchorChecker(root).check_many([found for _, found in named])
    out = list(entries)
    for (n, _), found in zip(named, issues, strict=True):
        if found:
            out[n] = replace(out[n], stale=tuple(i.message for i in found))
    return out


def _closing(shown: int, total: int, truncated: bool, budget: int) -> str:
    cut = total - shown
    if not cut and not truncated:
        return f"_(memcli context: all {total} knowledge entries shown; nothing cut.)_\n"
    what = f"{cut} of {total} knowledge entries cut" if cut else f"all {total} knowledge entries shown"
    if truncated:
        what = f"summary truncated, {what}"
    return f"_(memcli context: {what} to fit {budget} tokens; find the rest with `memcli search`.)_\n"


def _fit_lines(lines: list[str], room: int, counter: TokenCounter) -> int:
    """How many leading `lines` fit in `room` tokens (counted per line, then checked whole)."""
    used = n = 0
    for line in lines:
        cost = counter.count(line)
        if used + cost > room:
            break
        used += cost
        n += 1
    while n and counter.count("".join(lines[:n])) > room:
        n -= 1  # BPE is not exactly additive across pieces: the whole text decides
    return n


@dataclass(frozen=True)
class _Layout:
    """What a budget lets through: the first `n_summary` summary lines and `n` index entries."""

    n_summary: int
    n: int
    truncated: bool
    tokens: int


def summary_part(summary: tuple[bool, str] | None,
                 skipped: list[str]) -> tuple[list[str], str | None, list[str]]:
    """The summary's lines, its path and `skipped` from (valid, body) of the summary, None when
    there is none."""
    if summary is None:
        return [], None, skipped
    valid, body = summary
    if not valid:
        return [], None, sorted([*skipped, SUMMARY_PATH])
    body = body.strip("\n")
    lines = [line + "\n" for line in body.split("\n")] + ["\n"] if body.strip() else []
    return lines, SUMMARY_PATH, skipped


def _text(summary_lines: list[str], entries: list[Entry], layout: _Layout, budget: int) -> str:
    index = INDEX_HEADING + "".join(e.line for e in entries[:layout.n]) if layout.n else ""
    return ("".join(summary_lines[:layout.n_summary]) + index
            + _closing(layout.n, len(entries), layout.truncated, budget))


def _fit(summary_lines: list[str], entries: list[Entry], budget: int, counter: TokenCounter) -> _Layout:
    # Reserve the closing line at its longest: summary truncated and every entry cut.
    reserve = counter.count(_closing(0, len(entries), True, budget))
    room = budget - reserve
    n_summary = _fit_lines(summary_lines, room, counter)
    truncated = n_summary < len(summary_lines) and any(s.strip() for s in summary_lines[n_summary:])
    head = "".join(summary_lines[:n_summary])
    n = 0
    if entries and not truncated:
        lines = [INDEX_HEADING] + [e.line for e in entries]
        n = max(0, _fit_lines(lines, room - counter.count(head), counter) - 1)
    while True:  # the whole text decides; drop entries, then summary lines, until it fits
        layout = _Layout(n_summary, n, truncated, 0)
        tokens = counter.count(_text(summary_lines, entries, layout, budget))
        if tokens <= budget or (n == 0 and n_summary == 0):
            return _Layout(n_summary, n, truncated, tokens)
        if n:
            n -= 1
        else:
            n_summary -= 1
            truncated = True


def build_context(workspace: Workspace, budget: int | None = None, counter: TokenCounter | None = None,
                  snapshot: Snapshot | None = None,
                  entries: tuple[list[Entry], list[str]] | None = None) -> ContextResult:
    """The resident context; `entries` is `resident_entries` when the caller already has it.

    Without an explicit `counter`, the layout is memoised in the state folder under a digest of
    everything it depends on (counter, budget, summary lines, index lines): a session start that
    finds the memory unchanged counts nothing and never loads the tokenizer's table."""
    budget = workspace.config.context.budget_tokens if budget is None else budget
    if budget < MIN_BUDGET:
        raise UsageError(f"--budget {budget} is too small; use at least {MIN_BUDGET} tokens")
    read = _from_store(workspace) if snapshot is None and entries is None else None
    if read is None:
        shown, skipped, lines, summary_path = _from_snapshot(workspace, snapshot, entries)
    else:
        shown, skipped, lines, summary_path = read
    if counter is not None:
        layout, name = _fit(lines, shown, budget, counter), counter.name
    else:
        layout, name = _memoised_fit(workspace, lines, shown, budget)
    text = _text(lines, shown, layout, budget)
    return ContextResult(text, layout.tokens, budget, name, summary_path, layout.truncated,
                         tuple(shown[:layout.n]), len(shown) - layout.n, tuple(skipped))


def _from_snapshot(workspace: Workspace, snapshot: Snapshot | None,
                   entries: tuple[list[Entry], list[str]] | None) -> Resident:
    """(entries with anchor marks, skipped, summary lines, summary path), read from the files."""
    from memcli.lint.snapshot import Snapshot

    snap = snapshot or Snapshot(workspace)
    shown, skipped = entries if entries is not None else resident_entries(snap)
    shown = with_anchor_marks(snap.root, shown, snapshot_anchors(snap, [e.path for e in shown]))
    summary = None
    if snap.exists(SUMMARY_PATH):
        rec = snap.record(SUMMARY_PATH)
        summary = (rec.model is not None, rec.body)
    lines, summary_path, skipped = summary_part(summary, skipped)
    return shown, skipped, lines, summary_path


def _from_store(workspace: Workspace) -> Resident | None:
    """The same from the record store (memcli.store), or None where it cannot answer."""
    from memcli.context_store import read_resident
    from memcli.store import open_store

    store = open_store(workspace)
    if store is None:
        return None
    with store:
        return read_resident(workspace, store)


def _memoised_fit(workspace: Workspace, summary_lines: list[str], entries: list[Entry],
                  budget: int) -> tuple[_Layout, str]:
    from memcli.context_memo import LayoutMemo

    memo = LayoutMemo(workspace.state_dir)
    key = memo.key(budget, summary_lines, [e.line for e in entries])
    known = memo.get(key)
    if known is not None:
        name, fields = known
        return _Layout(*fields), name
    counter = get_counter(workspace.state_dir)
    layout = _fit(summary_lines, entries, budget, counter)
    memo.put(key, counter.name, (layout.n_summary, layout.n, layout.truncated, layout.tokens))
    return layout, counter.name


def run(workspace: Workspace, *, budget: int | None = None, fmt: str = "markdown") -> int:
    if fmt not in FORMATS:
        raise UsageError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    result = build_context(workspace, budget)
    if fmt == "json":
        print(json.dumps(result.to_json_dict(), ensure_ascii=False, indent=2))
    else:
        print(result.text, end="")
    return EXIT_OK
