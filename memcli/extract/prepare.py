"""From session entries to redacted chunks that fit the model's token budget.

Each entry becomes a few *parts*, each with a priority class; when a chunk would overflow its budget,
the least important parts are left out first (replaced by one short marker), so human prompts and
final answers survive and tool output goes first:

    0 human prompt > 1 final answer > 2 other assistant text > 3 tool call > 4 tool output

Levels say what a chunk keeps: 5 everything (tool output cut to `tool_output_chars`), 4 a brief
head-and-tail of each tool output, 3 no tool output, 2 no tool-call arguments either.

A `memcli_remember` call is not sent: the entry carries it as `remembered` (staged without a model,
memcli.extract.remember), and its acknowledgement is left out too; an entry holding nothing else has
no parts, and a chunk of such entries needs no model call.

Injected context (AGENTS.md, environment blocks, slash-command expansions, subagent prompts) is
dropped; tool results that agents carry in `user` records are kept as tool output. Every part is
redacted before its size is measured, so nothing leaves the machine unredacted, and chunks are cut
only at entry boundaries, so each chunk is a contiguous span `[first.index, last.end]`; they are
cut too where the git branch the entries record changes, so a chunk's items have one branch.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from memcli.extract.remember import Remembered, calls_in, is_remember
from memcli.provenance import (
    MAX_FLAGGED,
    instruction_sentences,
    norm,
    role_of,
    role_spans,
    said_by_user,
)
from memcli.secrets import redact
from memcli.transcript.model import Entry
from memcli.values import frozen

HUMAN, FINAL, ASSISTANT, TOOL_CALL, TOOL_OUTPUT = range(5)
LABELS = {HUMAN: "human prompt", FINAL: "final answer", ASSISTANT: "assistant",
          TOOL_CALL: "tool call", TOOL_OUTPUT: "tool output"}
BRIEF = 5  # level 5 keeps tool output (cut to tool_output_chars); level 4 keeps only a brief excerpt
_MIN_LEVEL = ASSISTANT  # below this a chunk is split instead (prompts and answers are never dropped)
_BRIEF_CHARS = 240  # enough for the tail of a test run or the first line of an error
_ARGS_CHARS = 600  # tool-call arguments are context, not content: keep them short


def estimate_tokens(text: str) -> int:
    """Cheap token estimate that needs no tokenizer download: ~4 ASCII chars per token, and about
    one token per non-ASCII (e.g. CJK) character."""
    non_ascii = len(text) - len(text.encode("ascii", "ignore"))
    return (len(text) - non_ascii) // 4 + non_ascii + 1


def cut(text: str, limit: int) -> str:
    """Head and tail of a long text, with the size of what was cut in the middle."""
    if limit <= 0 or len(text) <= limit:
        return text
    head = limit * 2 // 3
    tail = limit - head
    return f"{text[:head]}\n[… {len(text) - limit} chars cut …]\n{text[-tail:] if tail else ''}"


@frozen
class Part:
    cls: int
    text: str
    tokens: int
    brief: str | None = None  # tool output: the short excerpt kept at level TOOL_OUTPUT
    brief_tokens: int = 0

    def at(self, level: int) -> tuple[str, int] | None:
        """(text, tokens) of this part at a level, or None when the level leaves it out."""
        if self.cls > level:
            return None
        if self.brief is not None and level < BRIEF:
            return self.brief, self.brief_tokens
        return self.text, self.tokens


@frozen
class Prepared:
    """One entry, ready to send: its file-line span and its redacted parts."""

    start: int
    end: int
    header: str
    parts: tuple[Part, ...]
    redactions: int
    role: str = "agent"  # who the text comes from (memcli.provenance.role_of; tool if only its output)
    remembered: tuple[Remembered, ...] = ()
    branch: str | None = None  # the git branch the agent recorded for the entry (Entry.branch)

    def render(self, level: int) -> str:
        kept = [t[0] for p in self.parts if (t := p.at(level)) is not None]
        dropped = [p for p in self.parts if p.cls > level]
        if dropped:
            kinds = sorted({LABELS[p.cls] for p in dropped})
            kept.append(f"[{len(dropped)} {' / '.join(kinds)} part(s) left out for size]")
        return f"{self.header}\n" + "\n".join(kept)

    def at_level(self, level: int) -> Prepared:
        """The same entry holding only what `render(level)` shows (a left-out part keeps its kind,
        for the marker): a planned chunk then holds its text, not every tool output it drops."""
        def slim(p: Part) -> Part:
            if p.cls > level:
                return Part(p.cls, "", 0)
            if p.brief is not None and level < BRIEF:
                return Part(p.cls, p.brief, p.brief_tokens)
            return p

        return replace(self, parts=tuple(slim(p) for p in self.parts))

    def tokens(self, level: int) -> int:
        kept = sum(t[1] for p in self.parts if (t := p.at(level)) is not None)
        return estimate_tokens(self.header) + kept + (12 if any(p.cls > level for p in self.parts) else 0)


@frozen
class Chunk:
    entries: tuple[Prepared, ...]
    level: int  # highest priority class kept

    @property
    def range(self) -> tuple[int, int]:
        return (self.entries[0].start, self.entries[-1].end)

    @property
    def redactions(self) -> int:
        return sum(e.redactions for e in self.entries)

    @property
    def remembered(self) -> tuple[Remembered, ...]:
        return tuple(r for e in self.entries for r in e.remembered)

    @property
    def branch(self) -> str | None:
        """The git branch its entries record (a chunk never spans two: the Chunker cuts there)."""
        return next((e.branch for e in reversed(self.entries) if e.branch), None)

    @property
    def needs_model(self) -> bool:
        """False when the chunk holds only `memcli_remember` calls (staged without a model)."""
        return any(e.parts for e in self.entries)

    def text(self) -> str:
        return "\n\n".join(e.render(self.level) for e in self.entries if e.parts)


def _part(cls: int, text: str) -> tuple[Part, int]:
    clean, count = redact(text)
    if cls != TOOL_OUTPUT or len(clean) <= _BRIEF_CHARS:
        return Part(cls, clean, estimate_tokens(clean)), count
    brief = cut(clean, _BRIEF_CHARS)  # cut after redacting: a cut never splits a secret in two
    return Part(cls, clean, estimate_tokens(clean), brief, estimate_tokens(brief)), count


def _args(arguments: object) -> str:
    if isinstance(arguments, str):
        return arguments
    return json.dumps(arguments, ensure_ascii=False, sort_keys=True)


def prepare(entry: Entry, tool_output_chars: int, hidden: frozenset[str] = frozenset()) -> Prepared | None:
    """The entry's redacted parts, or None when nothing of it is worth sending. `hidden`: call ids
    of `memcli_remember` calls, whose results (acknowledgements) are left out."""
    remembered, ids = calls_in(entry)
    hidden = hidden | ids
    raw: list[tuple[int, str]] = []
    if entry.text.strip() and not entry.injected:
        if entry.role == "user":
            raw.append((HUMAN, entry.text.strip()))
        elif entry.role == "assistant":
            raw.append((FINAL if entry.final else ASSISTANT, entry.text.strip()))
        elif entry.role == "tool":
            raw.append((TOOL_OUTPUT, cut(entry.text.strip(), tool_output_chars)))
    for call in entry.tool_calls:
        if is_remember(call.name):
            continue
        raw.append((TOOL_CALL, f"→ {call.name}({cut(_args(call.arguments), _ARGS_CHARS)})"))
    for result in entry.tool_results:
        if result.call_id in hidden:
            continue
        if result.content.strip():
            mark = "← error: " if result.is_error else "← "
            raw.append((TOOL_OUTPUT, mark + cut(result.content.strip(), tool_output_chars)))
    if not raw and not remembered:
        return None
    parts, total = [], 0
    for cls, text in raw:
        part, count = _part(cls, text)
        parts.append(part)
        total += count
    start, end = entry.span
    who = {"user": "user", "assistant": "assistant", "tool": "tool", "system": "system"}[entry.role]
    flags = (" (final)" if entry.final else "") + (" (subagent)" if entry.sidechain else "")
    role = "tool" if parts and all(p.cls == TOOL_OUTPUT for p in parts) else role_of(entry)
    return Prepared(start, end, f"--- entry {start}: {who}{flags}", tuple(parts), total, role, remembered,
                    entry.branch)


def _shrink(item: Prepared, budget: int) -> Prepared:
    """A single entry larger than a whole chunk: cut its kept texts to share the budget."""
    kept = [p for p in item.parts if p.cls <= _MIN_LEVEL]
    share = max(50, (budget - 100) // max(1, len(kept)))  # tokens per kept part

    def fit(p: Part) -> Part:
        if p.cls > _MIN_LEVEL or p.tokens <= share:
            return p
        text = cut(p.text, int(len(p.text) * share / p.tokens))  # chars in proportion to tokens
        return Part(p.cls, text, estimate_tokens(text))

    return replace(item, parts=tuple(fit(p) for p in item.parts))


class Chunker:
    """Packs entries in order into chunks of at most `budget` tokens, one entry at a time, so a
    caller can stream a session through it: only the open chunk is held here. `slim`: closed
    chunks keep only what their level renders (same text, less memory while a plan is held)."""

    def __init__(self, budget: int, *, slim: bool = False) -> None:
        self.budget, self.slim = budget, slim
        self._current: list[Prepared] = []
        self._sums = [0] * (BRIEF + 1)  # tokens of the open chunk at each level
        self._branch: str | None = None  # the git branch of the open chunk's entries

    def add(self, item: Prepared) -> Chunk | None:
        """Add one entry; returns the chunk it closed (it did not fit there any more), if any."""
        budget, closed = self.budget, None
        if item.branch and self._branch not in (None, item.branch):
            closed = self.close()  # the session moved to another branch: its items go there
        if item.branch:
            self._branch = item.branch
        costs = [item.tokens(level) for level in range(BRIEF + 1)]
        level = _best_level([s + c for s, c in zip(self._sums, costs, strict=True)], budget)
        if level is None and self._current:
            closed = self.close()
            level = _best_level(costs, budget)
        if level is None:  # one entry alone over budget
            item = _shrink(item, budget)
            costs = [item.tokens(lv) for lv in range(BRIEF + 1)]
        self._current.append(item)
        self._sums = [s + c for s, c in zip(self._sums, costs, strict=True)]
        return closed

    def close(self) -> Chunk | None:
        """The open chunk, closed (None when empty): the run of entries it belongs to ended."""
        if not self._current:
            return None
        level = _best_level(self._sums, self.budget) or _MIN_LEVEL
        items = tuple(p.at_level(level) for p in self._current) if self.slim else tuple(self._current)
        out = Chunk(items, level)
        self._current, self._sums, self._branch = [], [0] * (BRIEF + 1), None
        return out


def chunk(items: Iterable[Prepared], budget: int) -> list[Chunk]:
    """Pack entries in order into chunks of at most `budget` tokens, each at the highest level that
    fits; a chunk is closed when even dropping tool output and tool calls would not make room."""
    packer = Chunker(budget)
    chunks = [c for c in (packer.add(item) for item in items) if c is not None]
    last = packer.close()
    return chunks + [last] if last is not None else chunks


def _best_level(sums: list[int], budget: int) -> int | None:
    for level in range(BRIEF, _MIN_LEVEL - 1, -1):
        if sums[level] <= budget:
            return level
    return None


def provenance_of(chunk: Chunk) -> dict[str, list[Any]]:
    """What `extract` records with a staging file: each sent entry's role (runs merged), and the
    instruction-shaped sentences of the tool output it sent that the user did not say themselves."""
    spans = role_spans((e.start, e.end, e.role) for e in chunk.entries)
    said = norm(" ".join(p.text for e in chunk.entries for p in e.parts if p.cls == HUMAN))
    flagged: list[dict[str, Any]] = []
    for entry in chunk.entries:
        for part in entry.parts:
            shown = part.at(chunk.level) if part.cls == TOOL_OUTPUT else None
            for sentence in instruction_sentences(shown[0]) if shown else ():
                if not said_by_user(sentence, said) and len(flagged) < MAX_FLAGGED:
                    flagged.append({"entry": entry.start, "text": sentence})
    return {"roles": spans, "untrusted": flagged}
