"""What a search returns: one frozen `SearchHit` per record, and its JSON form."""

from __future__ import annotations

from dataclasses import asdict, dataclass
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

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["score"] = round(self.score, 4)
        return {k: v for k, v in data.items() if v is not None}
