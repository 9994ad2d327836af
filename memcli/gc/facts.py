"""What the GC checks need from one record, computed from one parse, and a cache of it.

Every check reads only a few fields of a record (its dates and status, the slugs and repository
paths it names, a sketch of its body for near-duplicates, its resident-index entry), so each
record is parsed once into a small `GcFacts` and every check reads that. The facts are a pure
function of the record's path and bytes and of memcli's code, so they are cached in the state dir
under the Linter's content key — which the Linter's cache derives from the file's stat, so an
unchanged record is neither read nor parsed on the next report. Near-duplicate pairs still
compare the real bodies: those few records are parsed again on demand.
Like the Linter's cache, any problem reading or writing this one just means a cold run.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import marshal
from dataclasses import dataclass, fields
from pathlib import Path

from memcli.atomicio import atomic_write_bytes
from memcli.codekey import code_fingerprint
from memcli.gc.checks import referenced_slugs
from memcli.gc.drift import mentions
from memcli.gc.duplicates import DUPLICATE_KINDS, TokenHashes, normalise, sample
from memcli.records.parse import ParsedRecord
from memcli.workspace import Kind

FACTS_FILE = "gc-facts.marshal"
_FORMAT = 3
# Code whose change can change a record's facts.
_CODE = ("gc", "records", "anchors.py", "context.py", "tokens.py", "workspace.py", "slug.py", "secrets.py",
         "__init__.py")


@dataclass(frozen=True)
class GcFacts:
    path: str
    ok: bool  # the file could be read as a record (its references count)
    valid: bool  # the frontmatter validated (the record is checked)
    updated_at: str | None = None  # ISO 8601, as the model holds it
    status: str | None = None  # a decision's status
    replaced_by: str | None = None
    references: tuple[str, ...] = ()  # knowledge slugs it names, sorted
    mentions: tuple[tuple[str, int], ...] = ()  # repository paths it names, with their line
    dup_len: int = -1  # length of the normalised body; -1: not compared for near-duplicates
    dup_digest: bytes = b""  # digest of the normalised body (exact copies)
    dup_sample: tuple[int, ...] = ()
    entry: tuple[str, str, bool] | None = None  # knowledge: (kind, description, model_invocation)
    anchors: tuple[tuple[str, str], ...] = ()  # (path, symbol or "") of its `anchors`

    @property
    def updated(self) -> dt.datetime:
        assert self.updated_at is not None
        return dt.datetime.fromisoformat(self.updated_at)


_FIELDS = tuple(f.name for f in fields(GcFacts))


def facts_of(rec: ParsedRecord, hashes: TokenHashes | None = None) -> GcFacts:
    model = rec.model
    references = tuple(sorted(referenced_slugs(rec))) if rec.ok else ()
    if model is None:
        return GcFacts(rec.path, rec.ok, False, references=references)
    status = model.status if rec.kind is Kind.DECISION else None
    replaced_by = model.replaced_by if rec.kind is Kind.DECISION else None
    dup_len, digest, sketch = -1, b"", ()
    if rec.kind in DUPLICATE_KINDS and status != "replaced":
        text = normalise(rec.body)
        dup_len = len(text)
        digest = hashlib.blake2b(text.encode(), digest_size=16).digest()
        sketch = tuple(sample(text, hashes))
    entry = None
    if rec.kind is Kind.KNOWLEDGE:
        from memcli.context import one_line

        entry = (model.kind, one_line(model.description), bool(model.model_invocation))
    return GcFacts(
        rec.path, rec.ok, True, model.updated_at.isoformat(), status, replaced_by, references,
        tuple((m.path, m.line) for m in mentions(rec.text)), dup_len, digest, sketch, entry,
        tuple((a.path, a.symbol or "") for a in getattr(model, "anchors", ())),  # the summary has none
    )


def _fingerprint() -> bytes:
    from memcli import __version__

    return code_fingerprint(_CODE, f"{_FORMAT}:{__version__}")


class FactsCache:
    """Content key (the Linter's) → the facts of that record, as plain tuples."""

    def __init__(self, file: Path | None) -> None:
        self.file = file
        self.fingerprint = _fingerprint()
        self._old: dict[bytes, tuple] = {}
        self._new: dict[bytes, tuple] = {}
        self._old_scores: dict[bytes, float] = {}
        self._new_scores: dict[bytes, float] = {}
        self._old_derived: dict[bytes, object] = {}
        self._new_derived: dict[bytes, object] = {}
        self._computed = 0
        if file is not None:
            try:
                stamp, entries, scores, derived = marshal.loads(file.read_bytes())
                if stamp == self.fingerprint and all(isinstance(d, dict) for d in (entries, scores, derived)):
                    self._old, self._old_scores, self._old_derived = entries, scores, derived
            except Exception:  # missing, truncated, garbage, an older format: a cold run
                pass

    @classmethod
    def in_state_dir(cls, state_dir: Path) -> FactsCache:
        return cls(state_dir / FACTS_FILE)

    def facts(self, key: bytes) -> GcFacts | None:
        row = self._new.get(key) or self._old.get(key)
        if row is None:
            return None
        self._new[key] = row
        try:
            return GcFacts(*row)
        except TypeError:  # a row of another shape: recompute
            return None

    def put_facts(self, key: bytes, facts: GcFacts) -> None:
        self._new[key] = tuple(getattr(facts, name) for name in _FIELDS)
        self._computed += 1

    # Near-duplicate scores of body pairs (keyed by both digests and the cutoff): a warm report
    # need not read the bodies of the pairs it compared before.

    def get(self, key: bytes) -> float | None:
        score = self._new_scores.get(key)
        if score is None:
            score = self._old_scores.get(key)
            if score is not None:
                self._new_scores[key] = score
        return score

    def put(self, key: bytes, score: float) -> None:
        self._new_scores[key] = score
        self._computed += 1

    # Workspace-wide results keyed by a digest of all their inputs (e.g. the resident index).

    def derived(self, key: bytes) -> object | None:
        value = self._new_derived.get(key, self._old_derived.get(key))
        if value is not None:
            self._new_derived[key] = value
        return value

    def put_derived(self, key: bytes, value: object) -> None:
        self._new_derived[key] = value
        self._computed += 1

    @property
    def computed(self) -> int:
        """How many facts and pair scores this run had to compute (0: all from the cache)."""
        return self._computed

    def save(self) -> None:
        """Keep what this run used (a report covers the whole workspace)."""
        unchanged = (len(self._new), len(self._new_scores), len(self._new_derived)) == (
            len(self._old), len(self._old_scores), len(self._old_derived))
        if self.file is None or (not self._computed and unchanged):
            return
        try:
            data = marshal.dumps((self.fingerprint, self._new, self._new_scores, self._new_derived))
            atomic_write_bytes(self.file, data)
        except (OSError, ValueError):
            pass  # a read-only state dir only costs speed
