"""What a search returns: one frozen `SearchHit` per record, and its JSON form."""

from __future__ import annotations

from dataclasses import asdict, field, replace
from pathlib import Path
from typing import Any

from memcli.anchors import AnchorChecker, stale_anchors
from memcli.records.anchors import Anchor
from memcli.values import frozen

# Snippet highlight markers: plain characters that survive JSON and terminals, rare in records.
MARK_OPEN = "«"
MARK_CLOSE = "»"


@frozen
class SearchHit:
    slug: str
    path: str  # workspace-relative POSIX path
    type: str  # decision | request | knowledge | summary | workflow
    score: float  # higher is better; comparable within one query only
    description: str  # the `description` field, or the body's first line for kinds without one
    snippet: str  # a body excerpt around the first match, matches wrapped in « »
    kind: str | None = None  # knowledge kind (term, policy, rule, fact, howto)
    status: str | None = None  # decision status (open, resolved, replaced)
    replaced_by: str | None = None  # the decision that replaced this one (status replaced)
    model_invocation: bool | None = None
    parse_error: str | None = None  # set when the file is not a valid record (indexed by its text)
    stale_anchors: tuple[str, ...] | None = None  # why the code it names moved or went (memcli.anchors)
    # The (path, symbol) anchors the record names, as the record store kept them; None: not known
    # (the record is read to find them). Not part of the hit's JSON.
    anchors: tuple[tuple[str, str | None], ...] | None = field(default=None, repr=False, compare=False)

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        del data["anchors"]
        data["score"] = round(self.score, 4)
        if self.stale_anchors is not None:
            data["stale_anchors"] = list(self.stale_anchors)
        return {k: v for k, v in data.items() if v is not None}


def hits_json(hits: list[SearchHit]) -> list[dict[str, Any]]:
    """The hits as `memcli search --json` prints them and the MCP tool `memcli_search` returns them."""
    return [hit.to_json() for hit in hits]


def with_anchor_marks(root: Path, hits: list[SearchHit]) -> list[SearchHit]:
    """The hits, each marked when the code its record anchors to no longer holds (checked now, at
    use, for the hits alone; a record is read for its anchors only when the store did not say)."""


    checker = AnchorChecker(root)
    known = [h for h in hits if h.anchors]
    issues = checker.check_many([[Anchor(path, symbol) for path, symbol in h.anchors or ()] for h in known])
    stale = {h.path: found for h, found in zip(known, issues, strict=True) if found}
    unknown = [h.path for h in hits if h.anchors is None]
    if unknown:
        stale.update(stale_anchors(root, unknown, checker))
    return [replace(h, stale_anchors=tuple(i.message for i in stale[h.path])) if h.path in stale else h
            for h in hits]
