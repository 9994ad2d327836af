"""Pydantic models of the frontmatter of every record kind (spec 1 §3), and of `Source`.

The field rules they share with the check that passes a plainly valid frontmatter without pydantic
(the timestamp, the anchor item) live in fields.py."""

from __future__ import annotations

import datetime as dt
import typing
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    StrictStr,
    field_validator,
)

from memcli.records.anchors import path_problem
from memcli.records.fields import FIELD_ALIASES as FIELD_ALIASES  # (kept importable from here)
from memcli.records.fields import anchor_item as _anchor_item
from memcli.records.fields import record_sources as record_sources
from memcli.records.fields import timestamp as _timestamp
from memcli.workspace import Kind

Timestamp = Annotated[dt.datetime, BeforeValidator(_timestamp)]
SlugRef = Annotated[StrictStr, Field(min_length=1)]

# Validators are built on first use, not at import: building them all is ~10 ms, and a process
# that loads these models usually validates one kind or none (a plainly valid frontmatter is
# checked without them: fields.py).
_STRICT = ConfigDict(extra="forbid", frozen=True, defer_build=True)


class Source(BaseModel):
    """A span of entries `[start, end]` (inclusive) of one agent session transcript."""

    model_config = _STRICT

    session_id: StrictStr = Field(min_length=1)
    range: tuple[StrictInt, StrictInt]

    @field_validator("session_id")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("session_id is blank")
        return value

    @field_validator("range")
    @classmethod
    def _ordered(cls, value: tuple[int, int]) -> tuple[int, int]:
        start, end = value
        if start < 0 or end < 0:
            raise ValueError(f"range [{start}, {end}] has a negative index; entry indices start at 0")
        if start > end:
            raise ValueError(f"range [{start}, {end}] ends before it starts; write [{end}, {start}]")
        return value

    @property
    def key(self) -> tuple[str, int, int]:
        return (self.session_id, self.range[0], self.range[1])

    def __str__(self) -> str:
        return f"{self.session_id}:{self.range[0]}-{self.range[1]}"


class AnchorSpec(BaseModel):
    """Code a record depends on: a path inside the repository, optionally a symbol in it."""

    model_config = _STRICT

    path: StrictStr
    symbol: StrictStr | None = None

    @field_validator("path")
    @classmethod
    def _inside(cls, value: str) -> str:
        problem = path_problem(value)
        if problem:
            raise ValueError(problem)
        return value


AnchorItem = Annotated[AnchorSpec, BeforeValidator(_anchor_item)]


class _Record(BaseModel):
    model_config = _STRICT


class _Dated(_Record):
    created_at: Timestamp
    updated_at: Timestamp
    anchors: list[AnchorItem] = Field(default_factory=list)  # optional: the code it depends on


class Decision(_Dated):
    sources: list[Source] = Field(min_length=1)
    status: Literal["open", "resolved", "replaced"]
    replaced_by: SlugRef | None = None


class Request(_Dated):
    sources: list[Source] = Field(min_length=1)


class Knowledge(_Dated):
    kind: Literal["term", "policy", "rule", "fact", "howto"]
    description: StrictStr = Field(min_length=1)
    model_invocation: StrictBool
    user_invocable: StrictBool
    last_sources: list[Source]


class Workflow(_Dated):
    description: StrictStr = Field(min_length=1)
    auto_invoke: StrictBool
    user_invocable: StrictBool
    requires: list[SlugRef]


class Summary(_Record):
    updated_at: Timestamp
    last_rewritten_from_range: Source | list[Source] | None = None


MODELS: dict[Kind, type[_Record]] = {
    Kind.DECISION: Decision,
    Kind.REQUEST: Request,
    Kind.KNOWLEDGE: Knowledge,
    Kind.WORKFLOW: Workflow,
    Kind.SUMMARY: Summary,
}


def _holds_source(annotation: Any) -> bool:
    return annotation is Source or any(_holds_source(arg) for arg in typing.get_args(annotation))


# Every frontmatter field typed as a Source (or a list of them), per kind, read off the models so a
# new Source field cannot be forgotten by the checks that must see every cited Source.
SOURCE_FIELDS: dict[Kind, tuple[str, ...]] = {
    kind: tuple(name for name, info in model.model_fields.items() if _holds_source(info.annotation))
    for kind, model in MODELS.items()
}


def cited_sources(kind: Kind, meta: dict[str, Any]) -> list[tuple[str, Any]]:
    """Every raw Source in a record's frontmatter with the field it sits in (a single Source, as
    the summary's `last_rewritten_from_range` may be, counts as a list of one)."""
    out: list[tuple[str, Any]] = []
    for name in SOURCE_FIELDS.get(kind, ()):
        value = meta.get(name)
        items = value if isinstance(value, list) else [value] if isinstance(value, dict) else []
        out.extend((name, item) for item in items)
    return out
