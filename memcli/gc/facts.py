"""What the GC checks need from one record, computed from one parse, and a cache of it.

Every check reads only a few fields of a record (its dates and status, the slugs and repository
paths it names, a sketch of its body for near-duplicates, its resident-index entry), so each
record is parsed once into a small `GcFacts` and every check reads that. The facts are a pure
function of the record's path and bytes and of memcli's code, so they are kept in the record
store (memcli.store.cache), like the Linter's findings, under the content key the store knows from
its freshness check: an unchanged record is neither read nor parsed on the next report.
Near-duplicate pairs still compare the real bodies: those few records are rebuilt from the store
on demand. Any problem reading or writing the cache just means a cold run.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
from dataclasses import fields

from memcli import __version__
from memcli.codekey import code_fingerprint
from memcli.context import one_line
from memcli.gc.drift import mentions
from memcli.gc.duplicates import DUPLICATE_KINDS, TokenHashes, normalise, sample
from memcli.records.parse import ParsedRecord
from memcli.store import RecordStore
from memcli.store.cache import ScopeCache
from memcli.values import frozen
from memcli.workspace import Kind

_FORMAT = 4
LEGACY_FILE = "gc-facts.marshal"  # where versions before the record store kept the facts
# Code whose change can change a record's facts.
_CODE = ("gc", "records", "anchors.py", "context", "tokens.py", "workspace.py", "slug.py", "secrets.py",
         "values.py", "__init__.py")

_SLUG = r"[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?"
# The ways one record names another knowledge record in text (frontmatter included).
# The leading lookahead only restates each branch's first character: it lets the scan reject most
# positions at once instead of trying three branches with lookbehinds at every character.
_REFERENCES = re.compile(
    r"(?=[#`k])"
    rf"(?:(?<![\w#&/])#(?P<hash>{_SLUG})(?![\w-])"  # #slug (not C#, &#38;, a/b#c)
    rf"|`(?P<tick>{_SLUG})`"  # `slug`
    rf"|(?<![\w-])knowledge/(?P<path>{_SLUG})\.md)"  # knowledge/slug.md, ../knowledge/slug.md
)


@frozen
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
    dup_len, digest = -1, b""
    sketch: tuple[int, ...] = ()
    if rec.kind in DUPLICATE_KINDS and status != "replaced":
        text = normalise(rec.body)
        dup_len = len(text)
        digest = hashlib.blake2b(text.encode(), digest_size=16).digest()
        sketch = tuple(sample(text, hashes))
    entry = None
    if rec.kind is Kind.KNOWLEDGE:
        entry = (model.kind, one_line(model.description), bool(model.model_invocation))
    return GcFacts(
        rec.path, rec.ok, True, model.updated_at.isoformat(), status, replaced_by, references,
        tuple((m.path, m.line) for m in mentions(rec.text)), dup_len, digest, sketch, entry,
        tuple((a.path, a.symbol or "") for a in getattr(model, "anchors", ())),  # the summary has none
    )


def _fingerprint() -> str:
    return code_fingerprint(_CODE, f"{_FORMAT}:{__version__}").hex()


class FactsCache:
    """Content key (the record store's) → the facts of that record, kept in the store; also the
    near-duplicate scores of body pairs and workspace-wide results keyed by their inputs."""

    def __init__(self, store: RecordStore) -> None:
        self.entries = ScopeCache(store, "gc", _fingerprint(), legacy=LEGACY_FILE)
        self._computed = 0

    def facts(self, key: bytes) -> GcFacts | None:
        row = self.entries.load(b"facts:" + key)
        try:
            return GcFacts(*row) if isinstance(row, tuple) else None
        except TypeError:  # a row of another shape: recompute
            return None

    def put_facts(self, key: bytes, facts: GcFacts) -> None:
        self.entries.dump(b"facts:" + key, tuple(getattr(facts, name) for name in _FIELDS))
        self._computed += 1

    # Near-duplicate scores of body pairs (keyed by both digests and the cutoff): a warm report
    # need not read the bodies of the pairs it compared before.

    def get(self, key: bytes) -> float | None:
        found = self.entries.load(b"pair:" + key)
        return found if isinstance(found, float) else None

    def put(self, key: bytes, score: float) -> None:
        self.entries.dump(b"pair:" + key, score)
        self._computed += 1

    # Workspace-wide results keyed by a digest of all their inputs (e.g. the resident index).

    def derived(self, key: bytes) -> object | None:
        return self.entries.load(b"derived:" + key)

    def put_derived(self, key: bytes, value: object) -> None:
        self.entries.dump(b"derived:" + key, value)
        self._computed += 1

    @property
    def computed(self) -> int:
        """How many facts and pair scores this run had to compute (0: all from the cache)."""
        return self._computed

    def save(self) -> None:
        """Keep what this run used (a report covers the whole workspace)."""
        self.entries.save(whole=True)


def referenced_slugs(rec: ParsedRecord) -> set[str]:
    """Slugs a record names: `#slug`, `` `slug` ``, `knowledge/slug.md`, `requires`, `replaced_by`."""
    found = {m.group(m.lastgroup) for m in _REFERENCES.finditer(rec.text) if m.lastgroup}
    meta = rec.meta or {}
    requires = meta.get("requires")
    if isinstance(requires, list):
        found.update(r for r in requires if isinstance(r, str))
    if isinstance(meta.get("replaced_by"), str):
        found.add(meta["replaced_by"])
    if rec.kind is Kind.KNOWLEDGE:
        found.discard(rec.slug or "")  # naming itself is not a reference
    return found
