"""The knowledge-candidate report: Sources worth promoting to knowledge (deterministic, no LLM).

Three kinds of candidate (pipeline spec §3, seeds ticket-phase2; the third, issue 30):
- `recurring`: one topic coming back in staging items or decisions from at least
  `metrics.candidate_sessions` distinct sessions. Topics are titles (staging) or slug + first body
  line (decisions) without English stop words, scored by the mean of rapidfuzz `token_set_ratio`
  and `token_sort_ratio` >= `metrics.candidate_similarity`, grouped around the first item of each
  topic. Japanese has no spaces, so CJK runs are compared as character bigrams.
- `invoked`: a decision or request explicitly invoked at or above `metrics.protect_rate`.
- `imported`: the items of one staging file `memcli import` made from a memory or instruction file
  (a document Source, `<kind>/<path>`): the user already keeps them as standing knowledge (rules,
  how-tos, facts of the project), so they need not come back in three sessions to become one.
Phase 2 may create a knowledge file only from a Source listed here (`CandidateReport.sources`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from memcli.agents.documents import is_document_id
from memcli.metrics.api import Metrics, load_metrics
from memcli.metrics.figures import RecordInfo, workspace_records
from memcli.recordtext import read_file
from memcli.values import frozen
from memcli.workspace import Kind, Workspace

SourceKey = tuple[str, int, int]
_CJK_RUN = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff\uac00-\ud7af]+")
_WORD = re.compile(r"[^\W_]+")
# Function words carry no topic; left in, any two English titles share a few of them.
_STOP = frozenset(
    "a an and are as at be by for from has have in is it its of on or that the this to use uses used "
    "using via was we will with should must not no now only".split()
)


@frozen
class TopicItem:
    title: str
    origin: str  # "staging:<id>" or a record path
    item_type: str  # decision | discussion | attempt | request
    sources: tuple[SourceKey, ...]


@dataclass
class Candidate:
    kind: str  # "recurring" | "invoked" | "imported"
    topic: str
    sources: list[SourceKey]
    evidence: list[dict[str, Any]]
    related: list[str]
    sessions: int = 0

    def to_json_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "topic": self.topic,
            "sessions": self.sessions,
            "sources": [{"session_id": s, "range": [a, b]} for s, a, b in self.sources],
            "evidence": self.evidence,
            "related": self.related,
        }


@dataclass
class CandidateReport:
    candidates: list[Candidate] = field(default_factory=list)
    staging_files: int = 0
    staging_skipped: int = 0  # unreadable staging files (Phase 1 will rewrite or the Linter reports)

    @property
    def sources(self) -> frozenset[SourceKey]:
        return frozenset(s for c in self.candidates for s in c.sources)

    def allows(self, session_id: str, start: int, end: int) -> bool:
        """A Source is allowed when a listed Source of the same session covers its range."""
        return any(s == session_id and a <= start and end <= b for s, a, b in self.sources)

    def to_json_dict(self) -> dict[str, Any]:
        return {
            "candidates": [c.to_json_dict() for c in self.candidates],
            "sources": [{"session_id": s, "range": [a, b]} for s, a, b in sorted(self.sources)],
            "staging_files": self.staging_files,
            "staging_skipped": self.staging_skipped,
        }


def topic_text(text: str) -> str:
    """Lower-case words; CJK runs become overlapping character bigrams (words for the matcher)."""
    words: list[str] = []
    for word in _WORD.findall(text.lower()):
        for part in re.split(f"({_CJK_RUN.pattern})", word):
            if not part:
                continue
            if _CJK_RUN.fullmatch(part):
                words.extend(part[i : i + 2] for i in range(max(len(part) - 1, 1)))
            elif part not in _STOP:
                words.append(part)
    return " ".join(words)


def staging_items(ws: Workspace) -> tuple[list[TopicItem], int, int]:
    from memcli.staging import StagingFile  # here: gc-report loads this module for its figures

    items: list[TopicItem] = []
    files = skipped = 0
    if not ws.staging_dir.is_dir():
        return items, files, skipped
    for path in sorted(ws.staging_dir.glob("*.json")):
        try:
            staged = StagingFile.model_validate_json(path.read_bytes())
        except (OSError, ValidationError, ValueError):
            skipped += 1
            continue
        files += 1
        key = staged.source.key
        groups = (("decision", staged.items.decisions), ("discussion", staged.items.discussions),
                  ("attempt", staged.items.attempts), ("request", staged.items.requests))
        for item_type, group in groups:
            items.extend(TopicItem(i.title, f"staging:{staged.id}", item_type, (key,)) for i in group)
    return items, files, skipped


def decision_items(ws: Workspace, records: dict[str, RecordInfo]) -> list[TopicItem]:
    out = []
    for rec in records.values():
        if rec.kind is not Kind.DECISION or not rec.sources:
            continue
        data, _ = read_file(ws.abspath(rec.path))  # bounded, never waits on a FIFO
        try:
            body = (data or b"").decode("utf-8").split("\n---", 1)[-1]
        except UnicodeDecodeError:
            body = ""
        first = next((line.strip() for line in body.splitlines() if line.strip()), "")
        title = f"{rec.slug.replace('-', ' ')} {first[:200]}"
        out.append(TopicItem(title, rec.path, "decision", rec.sources))
    return out


def similarity(a: str, b: str) -> float:
    """Mean of rapidfuzz token_set_ratio and token_sort_ratio over topic texts (0-100).

    token_set_ratio alone scores any subset 100 ("sqlite" vs "use sqlite wal mode"), which would
    chain unrelated topics together; the sort ratio brings in how much of the two texts is shared.
    """
    from rapidfuzz import fuzz  # here: `memcli why` loads this module for the usage figures

    return (fuzz.token_set_ratio(a, b) + fuzz.token_sort_ratio(a, b)) / 2


def _groups(texts: list[str], threshold: float) -> list[list[int]]:
    """Leader clustering: an item joins the first group whose first item it resembles.

    Not transitive on purpose — a chain of each-slightly-similar titles is not one topic. The set
    ratio is an upper bound of the mean score, so it pre-selects leaders in C.
    """
    from rapidfuzz import fuzz, process  # here: `memcli why` loads this module for the usage figures

    leaders: list[str] = []
    groups: list[list[int]] = []
    for i, text in enumerate(texts):
        if not text:
            continue
        joined = False
        if leaders:
            near = process.extract(text, leaders, scorer=fuzz.token_set_ratio, score_cutoff=threshold,
                                   limit=None)
            for _, _, g in sorted(near, key=lambda hit: hit[2]):
                if similarity(text, leaders[g]) >= threshold:
                    groups[g].append(i)
                    joined = True
                    break
        if not joined:
            leaders.append(text)
            groups.append([i])
    return groups


def _related_knowledge(topic: str, records: dict[str, RecordInfo], threshold: float) -> list[str]:
    """Existing knowledge on the same topic: Phase 2 should update it rather than add a twin."""
    return [rec.path for rec in records.values() if rec.kind is Kind.KNOWLEDGE
            and similarity(topic, topic_text(rec.slug.replace("-", " "))) >= threshold]


def recurring(ws: Workspace, records: dict[str, RecordInfo], items: list[TopicItem]) -> list[Candidate]:
    cfg = ws.config.metrics
    texts = [topic_text(i.title) for i in items]
    out = []
    for group in _groups(texts, cfg.candidate_similarity):
        members = [items[i] for i in group]
        sessions = {s for m in members for s, _, _ in m.sources}
        if len(sessions) < cfg.candidate_sessions:
            continue
        sources = sorted({s for m in members for s in m.sources})
        topic = min((m.title for m in members), key=lambda t: (len(t), t))
        related = sorted({m.origin for m in members if "/" in m.origin}
                         | set(_related_knowledge(topic_text(topic), records, cfg.candidate_similarity)))
        evidence = [{"origin": m.origin, "type": m.item_type, "title": m.title,
                     "sources": [{"session_id": s, "range": [a, b]} for s, a, b in m.sources]}
                    for m in members]
        out.append(Candidate("recurring", topic, sources, evidence, related, len(sessions)))
    return out


def invoked(metrics: Metrics | None, records: dict[str, RecordInfo]) -> list[Candidate]:
    if metrics is None:
        return []
    out = []
    for path, m in sorted(metrics.records.items()):
        if m.kind not in (Kind.DECISION, Kind.REQUEST) or not m.protected:
            continue
        sources = sorted({s for p in (path, *m.merged_from) for s in records[p].sources})
        evidence = [{"invokes": m.count, "rate": round(m.rate, 6), "tokens": m.tokens,
                     "protect_rate": metrics.threshold,
                     "at": [{"session_id": i.session_id, "range": [i.index, i.index], "how": i.how}
                            for i in m.invokes[:20]]}]
        out.append(Candidate("invoked", m.slug, sources, evidence, [path, *m.merged_from],
                             len({s for s, _, _ in sources})))
    return out


def imported(items: list[TopicItem]) -> list[Candidate]:
    files: dict[str, list[TopicItem]] = {}
    for item in items:
        if item.origin.startswith("staging:") and all(is_document_id(s) for s, _, _ in item.sources):
            files.setdefault(item.origin, []).append(item)
    out = []
    for origin, members in files.items():
        sources = sorted({s for m in members for s in m.sources})
        evidence = [{"origin": origin, "type": m.item_type, "title": m.title,
                     "sources": [{"session_id": s, "range": [a, b]} for s, a, b in m.sources]}
                    for m in members]
        topic = min((m.title for m in members), key=lambda t: (len(t), t))
        out.append(Candidate("imported", topic, sources, evidence, [], 1))
    return out


def candidate_report(ws: Workspace, metrics: Metrics | None = None) -> CandidateReport:
    """Build the report from staging, decisions and (when given, or saved) usage metrics."""
    if metrics is None:
        metrics = load_metrics(ws)
    records = workspace_records(ws)
    items, files, skipped = staging_items(ws)
    staged = list(items)
    items.extend(decision_items(ws, records))
    report = CandidateReport(staging_files=files, staging_skipped=skipped)
    report.candidates = recurring(ws, records, items) + invoked(metrics, records) + imported(staged)
    return report
