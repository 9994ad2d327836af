"""Near-duplicate bodies, in near-linear time.

Comparing every pair of 10 000 bodies is 50 million edit-distance computations; instead each body
gets a small sketch — the smallest hashes of its 3-token shingles (a bottom-k MinHash; a token is an
ASCII word or any other single character, so Japanese needs no word splitter) — and only bodies that
share a sketch value are compared, with `rapidfuzz.fuzz.ratio` and the configured cutoff. Two bodies
that are ≥ 90 % alike share most shingles, so they almost surely share sketch values. Sketch values
found in more than `MAX_BUCKET` bodies are boilerplate and are skipped in favour of rarer ones.
Hashes are crc32 + a fixed mixer (never Python's per-process `hash()`), so every run reports the same.
"""

from __future__ import annotations

import re
import zlib
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

SHINGLE = 3  # tokens per shingle
SAMPLE = 32  # smallest shingle hashes kept per body
KEYS = 12  # of those, the rarest-enough ones used to pair bodies
MAX_BUCKET = 50
_SPACE = re.compile(r"\s+")
_TOKEN = re.compile(r"[a-z0-9_]+|[^\sa-z0-9_]")


@dataclass(frozen=True)
class DuplicateGroup:
    paths: tuple[str, ...]  # sorted
    pairs: tuple[tuple[str, str, float], ...]  # (path, path, similarity) of the matches found


def normalise(body: str) -> str:
    return _SPACE.sub(" ", body).strip().lower()


class _TokenHashes(dict[str, int]):
    """crc32 of each token, computed once per distinct token (bodies share most of their words)."""

    def __missing__(self, token: str) -> int:
        value = self[token] = zlib.crc32(token.encode())
        return value


def _sample(text: str, hashes: _TokenHashes | None = None) -> list[int]:
    import numpy as np

    tokens = _TOKEN.findall(text)
    lookup = (hashes if hashes is not None else _TokenHashes()).__getitem__
    ids = np.fromiter(map(lookup, tokens), dtype=np.uint64, count=len(tokens))
    n = len(ids) - SHINGLE + 1
    if n <= 0:
        return []
    h = np.zeros(n, dtype=np.uint64)
    for j in range(SHINGLE):  # polynomial hash of every window, wrapping mod 2**64
        h = h * np.uint64(1_000_003) + ids[j : j + n]
    # splitmix64 finaliser: spreads the bits so the smallest hashes are a fair sample of the windows
    h ^= h >> np.uint64(30)
    h *= np.uint64(0xBF58476D1CE4E5B9)
    h ^= h >> np.uint64(27)
    h *= np.uint64(0x94D049BB133111EB)
    h ^= h >> np.uint64(31)
    return np.unique(h)[:SAMPLE].tolist()  # np.unique sorts


def _find(parent: list[int], i: int) -> int:
    while parent[i] != i:
        parent[i] = parent[parent[i]]
        i = parent[i]
    return i


def near_duplicates(
    items: Sequence[tuple[str, str]], similarity: float, min_chars: int
) -> list[DuplicateGroup]:
    """Groups of (path, body) whose normalised bodies are ≥ `similarity` (0–100) alike."""
    from rapidfuzz import fuzz

    docs = [(path, normalise(body)) for path, body in sorted(items)]
    docs = [(path, text) for path, text in docs if len(text) >= min_chars]
    hashes = _TokenHashes()
    samples = [_sample(text, hashes) for _, text in docs]
    frequency = Counter(value for sample in samples for value in sample)
    buckets: dict[int, list[int]] = defaultdict(list)
    for i, sample in enumerate(samples):
        for value in [v for v in sample if frequency[v] <= MAX_BUCKET][:KEYS]:
            buckets[value].append(i)
    pairs: set[tuple[int, int]] = set()
    identical: dict[str, int] = {}
    for i, (_, text) in enumerate(docs):  # exact copies pair even when they are too many for a bucket
        first = identical.setdefault(text, i)
        if first != i:
            pairs.add((first, i))
    for members in buckets.values():
        if len(members) > 1:
            pairs.update((a, b) for k, a in enumerate(members) for b in members[k + 1 :])
    parent = list(range(len(docs)))
    found: list[tuple[int, int, float]] = []
    for a, b in sorted(pairs):
        la, lb = len(docs[a][1]), len(docs[b][1])
        if 200 * min(la, lb) / (la + lb) < similarity:
            continue  # the length gap alone rules it out
        score = fuzz.ratio(docs[a][1], docs[b][1], score_cutoff=similarity)
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
        members = sorted({docs[i][0] for a, b, _ in matches for i in (a, b)})
        out.append(DuplicateGroup(tuple(members), tuple((docs[a][0], docs[b][0], s) for a, b, s in matches)))
    return sorted(out, key=lambda g: g.paths)
