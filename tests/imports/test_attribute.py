"""memcli, not the model, says which lines each item came from: by the words they share."""

from __future__ import annotations

import pytest

from memcli.imports.attribute import group
from memcli.imports.plan import Piece
from memcli.staging import DecisionItem, ExtractedItems, RequestItem

BLOCKS = [
    Piece(5, 5, "a", "- Use pnpm, never npm or yarn: the lockfile is `pnpm-lock.yaml`.", ("Conventions",)),
    Piece(6, 6, "b", "- Money is stored as integer cents; never use floats for prices.", ("Conventions",)),
    Piece(8, 10, "c", "The web app never queries Postgres directly:\nit calls the order service.",
          ("Architecture",)),
    Piece(12, 12, "d", "- コミットメッセージは日本語で、Conventional Commits の形式にする。", ("PR の規約",)),
    Piece(13, 13, "e", "- 1 つの PR には 1 つの目的だけを含める。", ("PR の規約",)),
    Piece(15, 15, "f", "- Run the tests with `pnpm test` before pushing.", ("Workflow",)),
    Piece(16, 16, "g", "- Run the linter with `pnpm lint` before pushing.", ("Workflow",)),
]
WHOLE = (5, 16)


def _span(item) -> tuple[int, int]:
    kind = "decisions" if isinstance(item, DecisionItem) else "requests"
    [(span, _items)] = group(ExtractedItems(**{kind: [item]}), BLOCKS, WHOLE)
    return span


@pytest.mark.parametrize("item, span", [
    (RequestItem(title="Use pnpm", request="Always use pnpm; npm and yarn are not used (pnpm-lock.yaml)."),
     (5, 5)),
    (DecisionItem(title="Prices in cents", decision="Store money as integer cents, not floats",
                  rationale=""), (6, 6)),
    (DecisionItem(title="Web app talks to the order service",
                  decision="The web app calls the order service instead of querying Postgres"), (8, 10)),
    (RequestItem(title="コミットメッセージ",
                 request="コミットメッセージは日本語の Conventional Commits 形式で書く"), (12, 12)),
    (RequestItem(title="PR の目的", request="PR には目的を一つだけ含める"), (13, 13)),
    # one item merged from two neighbouring bullets cites the span over both
    (RequestItem(title="Check before pushing", request="Before pushing, run `pnpm test` and `pnpm lint`."),
     (15, 16)),
    # words the blocks do not hold: the whole chunk, wider but never wrong
    (RequestItem(title="Be kind", request="Reply politely to reviewers."), WHOLE),
])
def test_an_item_cites_the_blocks_it_came_from(item, span: tuple[int, int]) -> None:
    assert _span(item) == span


def test_items_are_grouped_by_span_in_line_order() -> None:
    items = ExtractedItems(
        requests=[RequestItem(title="b", request="PR には目的を一つだけ含める"),
                  RequestItem(title="a", request="Use pnpm, not npm or yarn")],
        decisions=[DecisionItem(title="c", decision="Money in integer cents, never floats")])
    grouped = group(items, BLOCKS, WHOLE)
    assert [(span, [i.title for k in ("decisions", "requests") for i in getattr(found, k)])
            for span, found in grouped] == [((5, 5), ["a"]), ((6, 6), ["c"]), ((13, 13), ["b"])]
