"""The evaluation: repeated directives, and for each later session what the memory did about them.

    report = evaluate(workspace, sessions, meaning=None)

For every repetition (detect.py) and every session after the first one it was said in:
* `held_before`: a record held it (coverage.py) in the memory as of the newest commit before that
  session started (past.py); None when that is unknown (no git, no session time);
* `reached`: "context" when the resident context built from that memory holds it (its text
  covers the wording, or a holding record is in its knowledge index), "search" when a holding
  record is in the top reach.TOP search hits for the session's task words (its first prompt and
  the prompt before the repetition, the repeated sentences left out), else None;
and, once per repetition, whether the memory holds it now (the records in the working tree).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from memcli.eval.coverage import MemoryAt, Passages, RecordView, view
from memcli.eval.detect import SAME_MEANING, Pair, Weights, groups, medoid, similar_pairs
from memcli.eval.features import Features, passages
from memcli.eval.past import MemoryHistory
from memcli.eval.reach import TOP, Scratch
from memcli.eval.statements import Session, Statement, directives, sentences
from memcli.recordtext import read_file
from memcli.values import frozen
from memcli.workspace import Workspace

if TYPE_CHECKING:
    from memcli.eval.meaning import Meaning

MAX_QUERY = 1_000


@frozen
class Occurrence:
    session_id: str
    agent: str
    start: int
    end: int
    time: dt.datetime | None
    text: str


@frozen
class Repeat:
    """One later session in which the user said it again."""

    session_id: str
    time: dt.datetime | None
    commit: str | None  # the memory's commit at that time (None: no commit yet, or unknown)
    held_before: bool | None
    held_by: tuple[str, ...]
    reached: str | None  # "context" | "search" | None
    query: str | None


@frozen
class Repetition:
    kind: str
    text: str  # the wording most like the others
    occurrences: tuple[Occurrence, ...]
    repeats: tuple[Repeat, ...]
    covered_now: bool
    covered_by: tuple[str, ...]

    @property
    def sessions(self) -> int:
        return len({o.session_id for o in self.occurrences})


@dataclass
class Report:
    sessions: int
    statements: int
    directives: int
    repetitions: list[Repetition]
    notes: list[str] = field(default_factory=list)


def _meaning_pairs(statements: Sequence[Statement], weights: Weights, meaning: Meaning) -> list[Pair]:
    vectors = meaning.vectors([s.text for s in statements])
    if vectors is None or not len(vectors):
        return []
    out = []
    for start in range(0, len(statements), 512):
        sims = vectors[start : start + 512] @ vectors.T
        for i, j in zip(*(sims >= SAME_MEANING).nonzero(), strict=True):
            a, b = start + int(i), int(j)
            if a < b and weights.compatible(statements[a].features, statements[b].features):
                out.append(Pair(a, b, float(sims[i, j])))
    return out


def _query(session: Session, prompt: int, said: set[str]) -> str | None:
    """The task words of a session up to a prompt, without the repeated sentences themselves."""
    chosen = dict.fromkeys((0, max(prompt - 1, 0), prompt) if prompt else (0,))
    words = [s for p in chosen for s in sentences(session.prompts[p].text) if s not in said]
    text = " ".join(words)[:MAX_QUERY].strip()
    return text or None


@frozen
class _Context:
    """The resident context of one commit: the knowledge it lists, its text as a memory."""

    shown: tuple[str, ...]
    text: MemoryAt

    def covers(self, wordings: Sequence[tuple[str, Features]]) -> bool:
        return bool(self.text.covering(wordings, ()))


class _Past:
    """The memory at past commits, read once per commit."""

    def __init__(self, ws: Workspace, index: Passages, meaning: Meaning | None) -> None:
        self.history = MemoryHistory(ws.root)
        self.index, self.meaning, self.ws = index, meaning, ws
        self._memories: dict[str | None, MemoryAt] = {None: MemoryAt([], index)}
        self._files: dict[str, dict[str, bytes]] = {}
        self._reach: dict[str, _Context] = {}
        self.scratch: Scratch | None = None

    def files(self, sha: str) -> dict[str, bytes]:
        if sha not in self._files:
            tree = self.history.files(sha)
            blobs = self.history.read(list(tree.values()))
            self._files[sha] = {rel: blobs[blob] for rel, blob in tree.items()}
        return self._files[sha]

    def memory(self, sha: str | None) -> MemoryAt:
        if sha not in self._memories:
            assert sha is not None
            records = [r for rel, data in self.files(sha).items() if (r := view(rel, data)) is not None]
            self._memories[sha] = MemoryAt(records, self.index)
        return self._memories[sha]

    def reached(self, sha: str, held: list[RecordView], wordings: Sequence[tuple[str, Features]],
                query: str | None) -> str | None:
        if self.scratch is None:
            embedder = self.meaning.embedder if self.meaning is not None and self.meaning.ok else None
            self.scratch = Scratch(self.ws, embedder)
        self.scratch.show(self.files(sha))
        if sha not in self._reach:
            built = self.scratch.context()
            text = RecordView("(resident context)", "context", "summary", False, (),
                              tuple(passages(built.text)), b"")
            shown = tuple(e.path for e in built.shown)
            self._reach[sha] = _Context(shown, MemoryAt([text], self.index))
        context = self._reach[sha]
        paths = {r.path for r in held}
        if paths & set(context.shown) or context.covers(wordings):
            return "context"
        if query and paths & {h.path for h in self.scratch.search(query, TOP)}:
            return "search"
        return None

    def close(self) -> None:
        if self.scratch is not None:
            self.scratch.close()


def now_records(ws: Workspace) -> list[RecordView]:
    out = []
    for rel in ws.iter_files():
        data, _ = read_file(ws.abspath(rel), follow=False)  # bounded, never waits on a FIFO
        if data is None:
            continue  # a stray folder, FIFO or link where a record should be, a file gone meanwhile
        if (record := view(rel, data)) is not None:
            out.append(record)
    return out


def evaluate(ws: Workspace | None, sessions: Sequence[Session], meaning: Meaning | None = None) -> Report:
    """The report over `sessions` (oldest first); `ws` None: no memory to check (nothing is held now,
    what was held before is unknown)."""
    statements, total = directives(sessions)
    weights = Weights([s.features for s in statements])
    pairs = similar_pairs(statements, weights)
    if meaning is not None and meaning.ok:
        pairs += _meaning_pairs(statements, weights, meaning)
    found = groups(len(statements), pairs, lambda i: statements[i].session)
    report = Report(len(sessions), total, len(statements), [])
    index = Passages(weights, meaning if meaning is not None and meaning.ok else None)
    now = MemoryAt(now_records(ws) if ws is not None else [], index)
    past = _Past(ws, index, meaning) if ws is not None else None
    if ws is None:
        report.notes.append("no workspace: the memory was not checked")
    elif past is not None and past.history.note:
        report.notes.append(past.history.note)
    try:
        for members in found:
            report.repetitions.append(_repetition(members, statements, sessions, weights, now, past))
    finally:
        if past is not None:
            past.close()
    if meaning is not None and meaning.error:
        report.notes.append(f"lexical only: {meaning.error}")
    return report


def _repetition(members: list[int], statements: Sequence[Statement], sessions: Sequence[Session],
                weights: Weights, now: MemoryAt, past: _Past | None) -> Repetition:
    occurrences = []
    for i in members:
        s = statements[i]
        session, prompt = sessions[s.session], sessions[s.session].prompts[s.prompt]
        occurrences.append(Occurrence(session.session_id, session.agent, prompt.start, prompt.end,
                                      prompt.time, s.text))
    wordings = [(statements[i].text, statements[i].features) for i in members]
    said = {statements[i].text for i in members}
    spans = [(o.session_id, o.start, o.end) for o in occurrences]
    held_now = now.covering(wordings, spans)
    repeats = []
    by_session: dict[int, int] = {}
    for i in members:
        by_session.setdefault(statements[i].session, i)
    order = sorted(by_session)
    for later in order[1:]:
        i = by_session[later]
        session = sessions[later]
        when = session.start or session.prompts[statements[i].prompt].time
        # sessions are in time order, so an earlier session has a smaller index
        earlier = [span for span, m in zip(spans, members, strict=True) if statements[m].session < later]
        query = _query(session, statements[i].prompt, said)
        if past is None or not past.history.available or when is None:
            repeats.append(Repeat(session.session_id, when, None, None, (), None, query))
            continue
        sha = past.history.commit_before(when)
        held = past.memory(sha).covering(wordings, earlier)
        reached = past.reached(sha, held, wordings, query) if held and sha else None
        repeats.append(Repeat(session.session_id, when, sha, bool(held), tuple(r.path for r in held), reached,
                              query))
    best = medoid(members, statements, weights)
    return Repetition(statements[best].kind, statements[best].text, tuple(occurrences), tuple(repeats),
                      bool(held_now), tuple(r.path for r in held_now))
