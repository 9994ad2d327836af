"""Which lines each imported item came from, found by memcli, never said by the model.

The model answers for a whole chunk (several blocks, for the context they give each other and so
that one statement spread over two bullets makes one item), in the staging schema, which has no
place for a source. memcli then compares each item's words with each block's (search's terms:
stemmed words, identifiers split, CJK as character bigrams) and cites the block that holds most of
the item, plus any other block of the chunk that adds words of the item the first did not hold and
is mostly in the item itself, or adds a good share of it (one item merged from neighbouring bullets
cites the span over them). An item that
matches no block well enough cites the whole chunk: a wider Source, never a wrong one.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from memcli.analysis.text import index_terms
from memcli.imports.plan import Piece
from memcli.staging import ExtractedItems
from memcli.values import frozen

FLOOR = 0.3  # the best block must hold this share of the item's words, else the whole chunk is cited
EXTRA = 0.2  # another block joins when it adds this share of the item's words
PRECISE = 0.3  # ... and this share of its own words is in the item (not a long block brushing it)
CONTAINED = 0.6  # or when most of its own words are in the item and it adds any (two bullets merged)
KINDS = tuple(ExtractedItems.model_fields)


@frozen
class _Terms:
    piece: Piece
    own: frozenset[str]  # the block's words
    near: frozenset[str]  # with the headings above it (context the item may repeat)


def _terms(text: str) -> frozenset[str]:
    return frozenset(index_terms(text).split())


def _item_text(item: Any) -> str:
    return " ".join(v for v in item.model_dump().values() if isinstance(v, str))


def cite(item: Any, blocks: list[_Terms], whole: tuple[int, int]) -> tuple[int, int]:
    """The line span an item came from, among the chunk's blocks (`whole`: the chunk's span)."""
    words = _terms(_item_text(item))
    if not words or not blocks:
        return whole

    def share(found: frozenset[str]) -> float:
        return len(words & found) / len(words)

    best = max(blocks, key=lambda b: (share(b.near), len(words & b.own) / max(1, len(b.own))))
    if share(best.near) < FLOOR:
        return whole
    chosen, held = [best], words & best.near
    for other in sorted(blocks, key=lambda b: -share(b.near)):
        new = (words & other.own) - held
        if other is best or not new:
            continue
        precision = len(words & other.own) / max(1, len(other.own))
        if precision >= CONTAINED or (len(new) / len(words) >= EXTRA and precision >= PRECISE):
            chosen.append(other)
            held |= new
    return min(b.piece.start for b in chosen), max(b.piece.end for b in chosen)


def group(items: ExtractedItems, pieces: Iterable[Piece], whole: tuple[int, int]
          ) -> list[tuple[tuple[int, int], ExtractedItems]]:
    """The answer's items grouped by the span each came from, in line order."""
    blocks = [_Terms(p, _terms(p.text), _terms(" ".join([p.text, *p.trail]))) for p in pieces]
    spans: dict[tuple[int, int], dict[str, list[Any]]] = {}
    for kind in KINDS:
        for item in getattr(items, kind):
            span = cite(item, blocks, whole)
            spans.setdefault(span, {k: [] for k in KINDS})[kind].append(item)
    return [(span, ExtractedItems(**found)) for span, found in sorted(spans.items())]
