"""What a search returns: one frozen `SearchHit` per record, and its JSON form."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

# Snippet highlight markers: plain characters that survive JSON and terminals, rare in records.
MARK_OPEN = "«"
MARK_CLOSE = "»"


@dataclass(frozen=True)
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

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["score"] = round(self.score, 4)
        if self.stale_anchors is not None:
            data["stale_anchors"] = list(self.stale_anchors)
        return {k: v for k, v in data.items() if v is not None}


def with_anchor_marks(root: Path, hits: list[SearchHit]) -> list[SearchHit]:
    """The hits, each marked when the code its record anchors to no longer holds (checked now, at
    use, for the hits alone)."""
    from dataclasses import replace

    from memcli.anchors import stale_anchors

    stale = stale_anchors(root, [h.path for h in hits])
    return [replace(h, stale_anchors=tuple(i.message for i in stale[h.path])) if h.path in stale else h
            for h in hits]
