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
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from memcli.eval.detect import Weights
from memcli.eval.features import Features, features, passages
from memcli.records import parse_record
from memcli.workspace import locate

if TYPE_CHECKING:
    from memcli.eval.meaning import Meaning

COVER = 0.6
COVER_WEAK = 0.3
COVER_MEANING = 0.8  # not tuned (no model here): docs/eval.md
NARROW = 3


@dataclass(frozen=True)
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


@lru_cache(maxsize=65_536)
def view(rel: str, data: bytes) -> RecordView | None:
    """A record file as coverage reads it; None for a file that is not a record."""
    where = locate(rel)
    if where.kind is None or where.slug is None:
        return None
    rec = parse_record(rel, data, where.kind, where.slug, validate=False)
    meta = rec.meta if isinstance(rec.meta, dict) else {}
    description = meta.get("description") if isinstance(meta.get("description"), str) else ""
    text = "\n".join([where.slug.replace("-", " "), description, rec.body if rec.ok else ""])
    return RecordView(rel, where.slug, where.kind.value, meta.get("status") == "replaced",
                      tuple(_sources(meta.get("sources")) + _sources(meta.get("last_sources"))),
                      tuple(passages(text)), data)


@lru_cache(maxsize=131_072)
def _features(text: str) -> Features:
    return features(text)


class MemoryAt:
    """The records of one moment, indexed by feature for `covering`."""

    def __init__(self, records: Sequence[RecordView], weights: Weights,
                 meaning: Meaning | None = None) -> None:
        self.records = [r for r in records if not r.replaced]
        self.weights = weights
        self.meaning = meaning
        self._owner: list[int] = []
        self._feats: list[Features] = []
        self.postings: dict[str, list[int]] = defaultdict(list)
        for ri, record in enumerate(self.records):
            for text in record.passages:
                feats = _features(text)
                pid = len(self._feats)
                self._owner.append(ri)
                self._feats.append(feats)
                for f in feats.weights:
                    self.postings[f].append(pid)
        self._vectors: Any = None

    def _best(self, wording: Features) -> dict[int, float]:
        """Record index → the largest share of `wording`'s content one of its passages holds (the
        words that shape a rule — not, always, use, instead — are said in many ways and do not count)."""
        vec = {f: w for f, w in self.weights.vector(wording).items() if f not in self.weights.function}
        total = sum(w * w for w in vec.values())
        if not total:
            return {}
        acc: dict[int, float] = defaultdict(float)
        for f, w in vec.items():
            for pid in self.postings.get(f, ()):
                acc[pid] += w * w
        best: dict[int, float] = {}
        for pid, held in acc.items():
            ri = self._owner[pid]
            best[ri] = max(best.get(ri, 0.0), held / total)
        return best

    def _by_meaning(self, texts: list[str]) -> set[int]:
        if self.meaning is None or not self._feats:
            return set()
        if self._vectors is None:
            texts_all = [t for r in self.records for t in r.passages]
            self._vectors = self.meaning.vectors(texts_all)
        wordings = self.meaning.vectors(texts)
        if self._vectors is None or wordings is None or not len(self._vectors):
            return set()
        sims = wordings @ self._vectors.T
        return {self._owner[int(pid)] for pid in set((sims >= COVER_MEANING).nonzero()[1].tolist())}

    def covering(self, wordings: Sequence[tuple[str, Features]],
                 occurrences: Sequence[tuple[str, int, int]]) -> list[RecordView]:
        """The records that hold the instruction said in `wordings` at `occurrences`
        (session id, first line, last line)."""
        best: dict[int, float] = {}
        for _, feats in wordings:
            for ri, share in self._best(feats).items():
                best[ri] = max(best.get(ri, 0.0), share)
        held = {ri for ri, share in best.items() if share >= COVER}
        held |= self._by_meaning([text for text, _ in wordings])
        spans = defaultdict(list)
        for sid, start, end in occurrences:
            spans[sid].append((start, end))
        for ri, record in enumerate(self.records):
            if ri in held:
                continue
            for sid, a, b in record.sources:
                if any(a <= end and b >= start for start, end in spans.get(sid, ())) and \
                        (b - a + 1 <= NARROW or best.get(ri, 0.0) >= COVER_WEAK):
                    held.add(ri)
                    break
        return [self.records[ri] for ri in sorted(held)]
