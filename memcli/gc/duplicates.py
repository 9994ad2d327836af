"""Near-duplicate bodies, in near-linear time.

Comparing every pair of 10 000 bodies is 50 million edit-distance computations; instead each body
gets a small sketch — the 16 smallest hashes of its character 5-grams (a bottom-k MinHash) — and
only bodies that share a sketch value are compared, with `rapidfuzz.fuzz.ratio` and the configured
cutoff. Two bodies that are ≥ 90 % alike share most of their 5-grams, so they almost surely share a
sketch value; a sketch value shared by more than `MAX_BUCKET` bodies is boilerplate and is not used
to pair them. Hashes are computed with numpy on code points (no Python `hash()`, which changes per
process), so the report is the same on every run.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

SHINGLE = 5
SKETCH = 16
MAX_BUCKET = 100
_SPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class DuplicateGroup:
    paths: tuple[str, ...]  # sorted
    pairs: tuple[tuple[str, str, float], ...]  # (path, path, similarity) of the matches found


def normalise(body: str) -> str:
    return _SPACE.sub(" ", body).strip().lower()


def _sketch(text: str) -> list[int]:
    import numpy as np

    codes = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32).astype(np.uint64)
    n = len(codes) - SHINGLE + 1
    if n <= 0:
        return []
    h = np.zeros(n, dtype=np.uint64)
    prime = np.uint64(1_000_003)
    for j in range(SHINGLE):  # polynomial hash of every window, wrapping mod 2**64
        h = h * prime + codes[j : j + n]
    # splitmix64 finaliser: spreads the bits so the smallest hashes are a fair sample of the windows
    h ^= h >> np.uint64(30)
    h *= np.uint64(0xBF58476D1CE4E5B9)
    h ^= h >> np.uint64(27)
    h *= np.uint64(0x94D049BB133111EB)
    h ^= h >> np.uint64(31)
    unique = np.unique(h)  # sorted
    return unique[:SKETCH].tolist()


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
    buckets: dict[int, list[int]] = defaultdict(list)
    for i, (_, text) in enumerate(docs):
        for value in _sketch(text):
            buckets[value].append(i)
    pairs: set[tuple[int, int]] = set()
    for members in buckets.values():
        if 1 < len(members) <= MAX_BUCKET:
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
