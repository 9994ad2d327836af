"""A short excerpt of a record body around the first query match, with matches marked."""

from __future__ import annotations

import re
import unicodedata
from typing import TYPE_CHECKING

from memcli.analysis.text import chunk_terms, initials
from memcli.search.hit import MARK_CLOSE, MARK_OPEN

if TYPE_CHECKING:
    from memcli.search.parsed import Query

_WORD = re.compile(r"[^\W_]+")
_WIDTH = 160


def _spans(text: str, query: Query) -> list[tuple[int, int]]:
    terms, runs = query.marked, query.runs
    nfkc = unicodedata.normalize("NFKC", text)
    if len(nfkc) != len(text):  # NFKC changed lengths (ligatures...): positions would drift
        nfkc = text
    folded = nfkc.casefold() if len(nfkc.casefold()) == len(nfkc) else nfkc
    spans: list[tuple[int, int]] = []
    if terms:
        first = frozenset(t[0] for t in terms)  # a word none of whose terms can start so is not stemmed
        for m in _WORD.finditer(nfkc):
            word = m.group()
            if not word.isascii() or first.isdisjoint(initials(word)):
                continue
            if terms.intersection(chunk_terms(word)):
                spans.append(m.span())
    for run in runs:
        for m in re.finditer(re.escape(run), folded):
            spans.append(m.span())
    spans.sort()
    merged: list[tuple[int, int]] = []
    for start, end in spans:
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def make_snippet(body: str, query: Query, width: int = _WIDTH) -> str:
    """One line of at most about `width` characters; the body's start when nothing matches."""
    text = " ".join(body.split())
    spans = _spans(text, query)
    if not spans:
        return text[:width] + ("…" if len(text) > width else "")
    first = spans[0][0]
    start = max(0, first - width // 4)
    end = min(len(text), start + width)
    start = max(0, min(start, end - width))
    out: list[str] = ["…" if start > 0 else ""]
    pos = start
    for s, e in spans:
        if s < start or e > end:
            continue
        out += [text[pos:s], MARK_OPEN, text[s:e], MARK_CLOSE]
        pos = e
    out.append(text[pos:end])
    if end < len(text):
        out.append("…")
    return "".join(out)
