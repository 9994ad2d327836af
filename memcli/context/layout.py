"""The resident context's layout: what fits the budget, in which order (spec 2 §6).

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

from dataclasses import field
from typing import TYPE_CHECKING

from memcli.context.gate import gated
from memcli.context.read import Entry, from_files, from_store
from memcli.errors import UsageError
from memcli.fence import memory_fence
from memcli.tokens import TokenCounter, get_counter
from memcli.values import frozen
from memcli.workspace import Workspace

if TYPE_CHECKING:
    from memcli.lint.snapshot import Snapshot


MIN_BUDGET = 100
INDEX_HEADING = "## Knowledge index\n\nRead `knowledge/<slug>.md` when an entry applies to the task.\n\n"


@frozen
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
    agent: str | None = None  # the agent it is for (`--agent`)
    as_skills: int = 0  # knowledge entries that agent already lists as skills (memcli.skills), not repeated
    # Whether the record store's files alone decide the text: false where git's history does too (a
    # line the gate looked at, a stale anchor) or the files were read around the store (a link)
    files_decide: bool = True

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
            "skills": {"agent": self.agent, "knowledge": self.as_skills},
            "text": self.text,
        }


def _closing(shown: int, total: int, truncated: bool, budget: int, skills: int = 0) -> str:
    cut = total - shown
    also = f"; {skills} more are your skills, not repeated here" if skills else ""
    if not total and skills and not truncated:
        return f"_(memcli context: all {skills} knowledge entries are your skills, not repeated here.)_\n"
    if not cut and not truncated:
        return f"_(memcli context: all {total} knowledge entries shown{also}; nothing cut.)_\n"
    what = f"{cut} of {total} knowledge entries cut" if cut else f"all {total} knowledge entries shown"
    if truncated:
        what = f"summary truncated, {what}"
    return f"_(memcli context: {what} to fit {budget} tokens{also}; find the rest with `memcli search`.)_\n"


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


@frozen
class _Layout:
    """What a budget lets through: the first `n_summary` summary lines and `n` index entries."""

    n_summary: int
    n: int
    truncated: bool
    tokens: int


def _text(summary_lines: list[str], entries: list[Entry], layout: _Layout, budget: int,
          skills: int = 0) -> str:
    index = INDEX_HEADING + "".join(e.line for e in entries[:layout.n]) if layout.n else ""
    body = "".join(summary_lines[:layout.n_summary]) + index
    # memory as data: a web page's words that reached the summary cannot pass for the harness's
    return (memory_fence(body) if body.strip() else "") + _closing(layout.n, len(entries), layout.truncated,
                                                                   budget, skills)


def _fit(summary_lines: list[str], entries: list[Entry], budget: int, counter: TokenCounter,
         skills: int = 0) -> _Layout:
    # Reserve the closing line at its longest: summary truncated and every entry cut.
    reserve = counter.count(_closing(0, len(entries), True, budget, skills) + memory_fence(""))
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
        tokens = counter.count(_text(summary_lines, entries, layout, budget, skills))
        if tokens <= budget or (n == 0 and n_summary == 0):
            return _Layout(n_summary, n, truncated, tokens)
        if n:
            n -= 1
        else:
            n_summary -= 1
            truncated = True


def build_context(workspace: Workspace, budget: int | None = None, counter: TokenCounter | None = None,
                  snapshot: Snapshot | None = None,
                  entries: tuple[list[Entry], list[str]] | None = None,
                  agent: str | None = None) -> ContextResult:
    """The resident context; `entries` is `resident_entries` when the caller already has it; for
    `agent` (its `--agent` name), without the knowledge it already lists as skills.

    Without an explicit `counter`, the layout is memoised in the state folder under a digest of
    everything it depends on (counter, budget, summary lines, index lines): a session start that
    finds the memory unchanged counts nothing and never loads the tokenizer's table."""
    budget = workspace.config.context.budget_tokens if budget is None else budget
    if budget < MIN_BUDGET:
        raise UsageError(f"--budget {budget} is too small; use at least {MIN_BUDGET} tokens")
    read = from_store(workspace) if snapshot is None and entries is None else None
    if read is None:
        shown, skipped, lines, summary_path = from_files(workspace, snapshot, entries)
    else:
        shown, skipped, lines, summary_path = read
    shown, lines, skipped, clean = gated(workspace, shown, lines, list(skipped))
    files_decide = read is not None and clean and not any(e.stale for e in shown)
    shown, skills = _without_skills(workspace, shown, agent)
    if counter is not None:
        layout, name = _fit(lines, shown, budget, counter, skills), counter.name
    else:
        layout, name = _memoised_fit(workspace, lines, shown, budget, skills)
    text = _text(lines, shown, layout, budget, skills)
    return ContextResult(text, layout.tokens, budget, name, summary_path, layout.truncated,
                         tuple(shown[:layout.n]), len(shown) - layout.n, tuple(skipped), agent, skills,
                         files_decide)


def _without_skills(workspace: Workspace, shown: list[Entry], agent: str | None) -> tuple[list[Entry], int]:
    """The entries `agent` does not already list as skills (memcli.skills.resident), and how many
    it does."""
    if agent is None:
        return shown, 0
    from memcli.skills.resident import listed_whole  # here: a session start without --agent reads no skills

    whole = listed_whole(workspace, agent)
    kept = [e for e in shown if whole.get(e.slug) != e.path]
    return kept, len(shown) - len(kept)


def _memoised_fit(workspace: Workspace, summary_lines: list[str], entries: list[Entry],
                  budget: int, skills: int = 0) -> tuple[_Layout, str]:
    from memcli.context.memo import LayoutMemo  # here: gc-report builds the context without it

    memo = LayoutMemo(workspace.state_dir)
    index = [e.line for e in entries] + ([f"skills:{skills}"] if skills else [])
    key = memo.key(budget, summary_lines, index)
    known = memo.get(key)
    if known is not None:
        name, fields = known
        return _Layout(*fields), name
    counter = get_counter(workspace.state_dir)
    layout = _fit(summary_lines, entries, budget, counter, skills)
    memo.put(key, counter.name, (layout.n_summary, layout.n, layout.truncated, layout.tokens))
    return layout, counter.name
