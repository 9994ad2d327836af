"""Does a memory (the records at some moment) hold an instruction?

A record holds a repeated instruction when

* **its text covers it**: one of its passages (a line, a list item, or two adjacent ones:
  features.passages) holds at least `COVER` of the weight of the content of one of the user's
  wordings (its words, code and Japanese, idf-weighted; not the words that shape a rule, such as
  "not", "always", "use", "instead", which are said in many ways) — or, with an embedding model, a
  passage is at cosine `COVER_MEANING` or more from a wording; or
* **its Sources point into an occurrence** (same session, overlapping entry range) *and* it is about
  it: a Source as narrow as `NARROW` lines (a `memcli_remember` call, an item `memcli eval --stage`
  staged) is enough; a wide extract chunk also needs `COVER_WEAK` of the wording in one passage
  (a chunk of 100 entries holds many things, and a record citing it need not hold this one).

A decision with `status: replaced` holds nothing any more. The summary is a record too.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from memcli.eval.detect import Weights
from memcli.eval.features import Features, features, passages
from memcli.records import parse_record
from memcli.values import frozen
from memcli.workspace import locate

if TYPE_CHECKING:
    from memcli.eval.meaning import Meaning

COVER = 0.6
COVER_WEAK = 0.3
COVER_MEANING = 0.8  # not tuned (no model here): docs/eval.md
NARROW = 3


@frozen
class RecordView:
    path: str
    slug: str
    kind: str
    replaced: bool
    sources: tuple[tuple[str, int, int], ...]
    passages: tuple[str, ...]
    data: bytes


def _sources(value: Any) -> list[tuple[str, int, int]]:
    out = []
    for src in value if isinstance(value, list) else []:
        if not isinstance(src, dict):
            continue
        sid, rng = src.get("session_id"), src.get("range")
        if isinstance(sid, str) and isinstance(rng, list | tuple) and len(rng) == 2 and \
                all(isinstance(x, int) for x in rng):
            out.append((sid, int(rng[0]), int(rng[1])))
    return out


@lru_cache(maxsize=8_192)  # a record read again (now, and at each commit it did not change) is parsed once
def view(rel: str, data: bytes) -> RecordView | None:
    """A record file as coverage reads it; None for a file that is not a record."""
    where = locate(rel)
    if where.kind is None or where.slug is None:
        return None
    rec = parse_record(rel, data, where.kind, where.slug, validate=False)
    meta = rec.meta if isinstance(rec.meta, dict) else {}
    description = got if isinstance(got := meta.get("description"), str) else ""
    text = "\n".join([where.slug.replace("-", " "), description, rec.body if rec.ok else ""])
    return RecordView(rel, where.slug, where.kind.value, meta.get("status") == "replaced",
                      tuple(_sources(meta.get("sources")) + _sources(meta.get("last_sources"))),
                      tuple(passages(text)), data)


@lru_cache(maxsize=131_072)
def _features(text: str) -> Features:
    return features(text)


class Passages:
    """The passages of every record version a run has seen, indexed by feature once: a record
    unchanged over fifty commits is read and indexed once, not fifty times."""

    def __init__(self, weights: Weights, meaning: Meaning | None = None) -> None:
        self.weights = weights
        self.meaning = meaning
        self.views: list[RecordView] = []
        self._ids: dict[RecordView, int] = {}
        self._owner: list[int] = []  # passage → view
        self._texts: list[str] = []
        self.postings: dict[str, list[int]] = defaultdict(list)
        self._best: dict[str, tuple[int, dict[int, float]]] = {}
        self._vectors: Any = None

    def add(self, record: RecordView) -> int:
        known = self._ids.get(record)
        if known is not None:
            return known
        vid = self._ids[record] = len(self.views)
        self.views.append(record)
        for text in record.passages:
            pid = len(self._texts)
            self._owner.append(vid)
            self._texts.append(text)
            for f in _features(text).weights:
                self.postings[f].append(pid)
        return vid

    def best(self, text: str, wording: Features) -> dict[int, float]:
        """Record version → the largest share of `wording`'s content one of its passages holds (the
        words that shape a rule — not, always, use, instead — are said in many ways and do not count)."""
        cached = self._best.get(text)
        if cached is not None and cached[0] == len(self._texts):
            return cached[1]
        vec = {f: w for f, w in self.weights.vector(wording).items() if f not in self.weights.function}
        total = sum(w * w for w in vec.values())
        acc: dict[int, float] = defaultdict(float)
        for f, w in vec.items():
            for pid in self.postings.get(f, ()):
                acc[pid] += w * w
        best: dict[int, float] = {}
        for pid, held in acc.items():
            vid = self._owner[pid]
            best[vid] = max(best.get(vid, 0.0), held / total)
        self._best[text] = (len(self._texts), best)
        return best

    def by_meaning(self, texts: list[str]) -> set[int]:
        """Record versions with a passage at COVER_MEANING or more from one of `texts`."""
        if self.meaning is None or not self._texts:
            return set()
        if self._vectors is None or len(self._vectors) != len(self._texts):
            self._vectors = self.meaning.vectors(self._texts)
        wordings = self.meaning.vectors(texts)
        if self._vectors is None or wordings is None:
            return set()
        sims = wordings @ self._vectors.T
        return {self._owner[int(pid)] for pid in set((sims >= COVER_MEANING).nonzero()[1].tolist())}


class MemoryAt:
    """The records of one moment."""

    def __init__(self, records: Sequence[RecordView], index: Passages) -> None:
        self.records = [r for r in records if not r.replaced]
        self.index = index
        self._ids = [index.add(r) for r in self.records]

    def covering(self, wordings: Sequence[tuple[str, Features]],
                 occurrences: Sequence[tuple[str, int, int]]) -> list[RecordView]:
        """The records that hold the instruction said in `wordings` at `occurrences`
        (session id, first line, last line)."""
        best: dict[int, float] = {}
        for text, feats in wordings:
            for vid, share in self.index.best(text, feats).items():
                best[vid] = max(best.get(vid, 0.0), share)
        meant = self.index.by_meaning([text for text, _ in wordings])
        spans = defaultdict(list)
        for sid, start, end in occurrences:
            spans[sid].append((start, end))
        held = []
        for record, vid in zip(self.records, self._ids, strict=True):
            share = best.get(vid, 0.0)
            if share >= COVER or vid in meant or any(
                    any(a <= end and b >= start for start, end in spans.get(sid, ()))
                    and (b - a + 1 <= NARROW or share >= COVER_WEAK) for sid, a, b in record.sources):
                held.append(record)
        return held
