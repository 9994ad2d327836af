"""The staging file format: Phase 1 output waiting for consolidation (`memory/_staging/<id>.json`).

The model fills `items`; memcli attaches everything else — above all the `source`, which is a
machine fact (session id + entry range), never model output.
"""

from __future__ import annotations

import datetime as dt
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from memcli.records.models import Source

STAGING_VERSION = 1
_TEXT = 2_000  # bounded strings keep small local models from running on forever


class _Item(BaseModel):
    model_config = ConfigDict(extra="forbid")


class DecisionItem(_Item):
    title: str = Field(min_length=1, max_length=200)
    decision: str = Field(min_length=1, max_length=_TEXT)
    rationale: str = Field("", max_length=_TEXT)
    status: Literal["open", "resolved"] = "resolved"


class DiscussionItem(_Item):
    title: str = Field(min_length=1, max_length=200)
    summary: str = Field(min_length=1, max_length=_TEXT)
    settled: bool = False


class AttemptItem(_Item):
    title: str = Field(min_length=1, max_length=200)
    outcome: str = Field(min_length=1, max_length=_TEXT)
    lesson: str = Field("", max_length=_TEXT)


class RequestItem(_Item):
    title: str = Field(min_length=1, max_length=200)
    request: str = Field(min_length=1, max_length=_TEXT)


class ExtractedItems(_Item):
    """Exactly what the Phase 1 model returns. Unknown keys are rejected; empty lists are fine."""

    decisions: list[DecisionItem] = Field(default_factory=list, max_length=50)
    discussions: list[DiscussionItem] = Field(default_factory=list, max_length=50)
    attempts: list[AttemptItem] = Field(default_factory=list, max_length=50)
    requests: list[RequestItem] = Field(default_factory=list, max_length=50)


class Usage(BaseModel):
    model_config = ConfigDict(extra="forbid")

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = None


class StagingFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    version: Literal[1] = STAGING_VERSION
    id: str
    agent: str
    source: Source  # machine-attached: the chunk's session id and entry range
    model: str
    prompt_version: str
    created_at: dt.datetime
    usage: Usage = Usage()
    items: ExtractedItems
