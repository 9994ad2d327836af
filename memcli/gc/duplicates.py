"""Near-duplicate bodies, in near-linear time.

Comparing every pair of 10 000 bodies is 50 million edit-distance computations; instead each body
gets a small sketch — the smallest hashes of its 3-token shingles (a bottom-k MinHash; a token is an
ASCII word or any other single character, so Japanese needs no word splitter) — and only bodies that
share a sketch value are compared, with `rapidfuzz.fuzz.ratio` and the configured cutoff. Two bodies
that are ≥ 90 % alike share most shingles, so they almost surely share sketch values. Sketch values
found in more than `MAX_BUCKET` bodies are boilerplate and are skipped in favour of rarer ones.
Hashes are the crc32 of each token, then Python's hash of each 3-tuple of them (ints and tuples of ints
hash the same in every process, unlike strings), so every run reports the same.
"""

from __future__ import annotations

import heapq
import re
import struct
import zlib
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from typing import Protocol

from rapidfuzz import fuzz

from memcli.values import frozen
from memcli.workspace import Kind

SHINGLE = 3  # tokens per shingle
SAMPLE = 32  # smallest shingle hashes kept per body
KEYS = 12  # of those, the rarest-enough ones used to pair bodies
MAX_BUCKET = 50
# Kinds compared: the summary digests the others (quoting is expected).
DUPLICATE_KINDS = (Kind.DECISION, Kind.REQUEST, Kind.KNOWLEDGE, Kind.WORKFLOW)
_SPACE = re.compile(r"\s+")
_TOKEN = re.compile(r"[a-z0-9_]+|[^\sa-z0-9_]")


@frozen
class DuplicateGroup:
    paths: tuple[str, ...]  # sorted
    pairs: tuple[tuple[str, str, float], ...]  # (path, path, similarity) of the matches found


def normalise(body: str) -> str:
    return _SPACE.sub(" ", body).strip().lower()


class TokenHashes(dict[str, int]):
    """crc32 of each token, computed once per distinct token (bodies share most of their words)."""

    def __missing__(self, token: str) -> int:
        value = self[token] = zlib.crc32(token.encode())
        return value


def sample(text: str, hashes: TokenHashes | None = None) -> list[int]:
    tokens = _TOKEN.findall(text)
    lookup = (hashes if hashes is not None else TokenHashes()).__getitem__
    ids = list(map(lookup, tokens))
    # Python hashes a tuple of ints with xxHash rounds, the same in every process (only str and
    # bytes hashes are randomised), and in C: no per-window Python arithmetic, no numpy.
    windows = zip(*(ids[j:] for j in range(SHINGLE)), strict=False)  # the last windows are short: dropped
    return heapq.nsmallest(SAMPLE, set(map(hash, windows)))


def _find(parent: list[int], i: int) -> int:
    while parent[i] != i:
        parent[i] = parent[parent[i]]
        i = parent[i]
    return i


@frozen
class Doc:
    """One body as the grouping sees it: its length, digest and sketch (the text only on demand)."""

    path: str
    length: int  # of the normalised body
    digest: bytes  # of the normalised body: equal digests are exact copies
    sample: tuple[int, ...] | list[int]


def near_duplicates(
    items: Sequence[tuple[str, str]], similarity: float, min_chars: int
) -> list[DuplicateGroup]:
    """Groups of (path, body) whose normalised bodies are ≥ `similarity` (0–100) alike."""
    texts = {path: normalise(body) for path, body in items}
    hashes = TokenHashes()
    docs = [Doc(path, len(text), text.encode(), sample(text, hashes)) for path, text in texts.items()]
    return group_duplicates(docs, texts.__getitem__, similarity, min_chars)


class ScoreMemo(Protocol):
    def get(self, key: bytes) -> float | None: ...
    def put(self, key: bytes, score: float) -> None: ...


def group_duplicates(
    docs: Sequence[Doc],
    text_of: Callable[[str], str],
    similarity: float,
    min_chars: int,
    scores: ScoreMemo | None = None,
) -> list[DuplicateGroup]:
    """`near_duplicates` over sketches computed earlier; `text_of(path)` gives a normalised body,
    asked only for the bodies of candidate pairs whose score `scores` (keyed by both digests and
    the cutoff) does not already know."""

    cutoff = struct.pack("<d", similarity)

    docs = sorted((d for d in docs if d.length >= min_chars), key=lambda d: d.path)
    frequency = Counter(value for doc in docs for value in doc.sample)
    buckets: dict[int, list[int]] = defaultdict(list)
    for i, doc in enumerate(docs):
        for value in [v for v in doc.sample if frequency[v] <= MAX_BUCKET][:KEYS]:
            buckets[value].append(i)
    pairs: set[tuple[int, int]] = set()
    identical: dict[bytes, int] = {}
    for i, doc in enumerate(docs):  # exact copies pair even when they are too many for a bucket
        first = identical.setdefault(doc.digest, i)
        if first != i:
            pairs.add((first, i))
    for members in buckets.values():
        if len(members) > 1:
            pairs.update((a, b) for k, a in enumerate(members) for b in members[k + 1 :])
    parent = list(range(len(docs)))
    found: list[tuple[int, int, float]] = []
    texts: dict[int, str] = {}
    for a, b in sorted(pairs):
        la, lb = docs[a].length, docs[b].length
        if 200 * min(la, lb) / (la + lb) < similarity:
            continue  # the length gap alone rules it out
        key = docs[a].digest + docs[b].digest + cutoff
        score = scores.get(key) if scores is not None else None
        if score is None:
            for i in (a, b):
                if i not in texts:
                    texts[i] = text_of(docs[i].path)
            score = fuzz.ratio(texts[a], texts[b], score_cutoff=similarity)
            if scores is not None:
                scores.put(key, score)
        if score:
            found.append((a, b, round(score, 1)))
            ra, rb = _find(parent, a), _find(parent, b)
            if ra != rb:
                parent[max(ra, rb)] = min(ra, rb)
    groups: dict[int, list[tuple[int, int, float]]] = defaultdict(list)
    for a, b, score in found:
        groups[_find(parent, a)].append((a, b, score))
    out = []
    for matches in groups.values():
        paths = sorted({docs[i].path for a, b, _ in matches for i in (a, b)})
        pairs_found = tuple((docs[a].path, docs[b].path, s) for a, b, s in matches)
        out.append(DuplicateGroup(tuple(paths), pairs_found))
    return sorted(out, key=lambda g: g.paths)
