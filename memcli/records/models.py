"""Pydantic models of the frontmatter of every record kind (spec 1 §3), and of `Source`."""

from __future__ import annotations

import datetime as dt
import re
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
from memcli.workspace import Kind

# RFC 3339 §5.6 date-time: full date, 'T' (or 't' / a space, as §5.6 allows), full time with
# seconds, and a zone. `datetime.fromisoformat` alone is looser (week dates, basic format, no
# seconds) and stricter (no lower-case 'z'), so the shape is checked first.
_RFC3339 = re.compile(r"^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?P<zone>[Zz]|[+-]\d{2}:\d{2})?$")
_EXAMPLE = "like 2026-04-27T10:00:00+09:00"


def _timestamp(value: Any) -> dt.datetime:
    """RFC 3339 with a time zone; YAML may already have made it a datetime."""
    if isinstance(value, dt.datetime):
        parsed = value
    elif isinstance(value, dt.date):
        raise ValueError(f"a date without a time; write an RFC 3339 timestamp {_EXAMPLE}")
    elif isinstance(value, str):
        match = _RFC3339.match(value.strip())
        if match is None:
            raise ValueError(f"{value!r} is not an RFC 3339 timestamp ({_EXAMPLE})")
        if match["zone"] is None:
            raise ValueError("the timestamp has no time zone; add one, e.g. +09:00 or Z")
        text = value.strip().replace("t", "T").replace("z", "Z").replace(" ", "T")
        try:
            parsed = dt.datetime.fromisoformat(text)
        except ValueError:  # e.g. month 13: the right shape, an impossible date
            raise ValueError(f"{value!r} is not a valid date and time ({_EXAMPLE})") from None
    else:
        raise ValueError(f"expected an RFC 3339 timestamp ({_EXAMPLE}), got {type(value).__name__}")
    if parsed.tzinfo is None or parsed.utcoffset() is None:
        raise ValueError("the timestamp has no time zone; add one, e.g. +09:00 or Z")
    return parsed


Timestamp = Annotated[dt.datetime, BeforeValidator(_timestamp)]
SlugRef = Annotated[StrictStr, Field(min_length=1)]

# Validators are built on first use, not at import: the commit hook's warm lint imports these
# models but never validates a record (the result cache knows every file), and building them all
# is ~10 ms of its start-up.
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


def _anchor_item(value: Any) -> Any:
    """`src/app.py` is short for `{path: src/app.py}`."""
    return {"path": value} if isinstance(value, str) else value


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

# The seeds spell `model_invocation` as `model_invokation`; accepted with a warning (spec 1 §3).
FIELD_ALIASES: dict[str, str] = {"model_invokation": "model_invocation"}


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


def record_sources(kind: Kind, meta: dict[str, Any]) -> list[Any]:
    """The raw Source list a record carries (`sources`, or `last_sources` for knowledge)."""
    key = "last_sources" if kind is Kind.KNOWLEDGE else "sources"
    value = meta.get(key)
    return value if isinstance(value, list) else []
