"""The frontmatter's field rules without pydantic, and the check that passes a plainly valid one.

Validating a record with its pydantic model (models.py) means importing pydantic and building the
model's validator: most of a commit hook's run when it lints one just-edited record. Most records
are valid, and the fields of a valid frontmatter have plain shapes: the exact types YAML gives
(str, bool, int, list, dict, datetime), nothing to coerce, no field missing. `plainly_valid` says
True only for such a frontmatter, field by field with the models' own rules (the same timestamp
and anchor-path checks, shared from here); anything else, an error or a shape it does not know,
goes to pydantic, which alone words the findings. It may never say True where the model would
refuse: tests/records/test_fields.py holds the tables below to the models' fields and compares
both on valid and broken frontmatters of every kind.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from typing import Any

from memcli.records.anchors import path_problem
from memcli.workspace import Kind

# RFC 3339 §5.6 date-time: full date, 'T' (or 't' / a space, as §5.6 allows), full time with
# seconds, and a zone. `datetime.fromisoformat` alone is looser (week dates, basic format, no
# seconds) and stricter (no lower-case 'z'), so the shape is checked first.
_RFC3339 = re.compile(r"^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?P<zone>[Zz]|[+-]\d{2}:\d{2})?$")
_EXAMPLE = "like 2026-04-27T10:00:00+09:00"

# The seeds spell `model_invocation` as `model_invokation`; accepted with a warning (spec 1 §3).
FIELD_ALIASES: dict[str, str] = {"model_invokation": "model_invocation"}


def timestamp(value: Any) -> dt.datetime:
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


def anchor_item(value: Any) -> Any:
    """`src/app.py` is short for `{path: src/app.py}`."""
    return {"path": value} if isinstance(value, str) else value


def record_sources(kind: Kind, meta: dict[str, Any]) -> list[Any]:
    """The raw Source list a record carries (`sources`, or `last_sources` for knowledge)."""
    key = "last_sources" if kind is Kind.KNOWLEDGE else "sources"
    value = meta.get(key)
    return value if isinstance(value, list) else []


# -- plainly valid: each check True only for a value its model field takes as it is -------------
Check = Callable[[Any], bool]


def _text(value: Any) -> bool:
    """A str pydantic takes: not a subclass, and encodable (a lone surrogate is refused)."""
    if type(value) is not str:
        return False
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _nonempty(value: Any) -> bool:  # StrictStr with min_length=1
    return _text(value) and len(value) >= 1


def _flag(value: Any) -> bool:  # StrictBool
    return type(value) is bool


def _timestamp(value: Any) -> bool:  # models.Timestamp
    if type(value) is not str and type(value) is not dt.datetime:
        return False
    try:
        timestamp(value)
    except ValueError:
        return False
    return True


def _one_of(*choices: str) -> Check:  # Literal[...]
    return lambda value: type(value) is str and value in choices


def _optional(check: Check) -> Check:
    return lambda value: value is None or check(value)


def _list_of(check: Check, min_length: int = 0) -> Check:
    return lambda value: type(value) is list and len(value) >= min_length and all(map(check, value))


def _source(value: Any) -> bool:  # models.Source
    if type(value) is not dict or value.keys() != {"session_id", "range"}:
        return False
    session, span = value["session_id"], value["range"]
    if not (_nonempty(session) and session.strip()):
        return False
    if type(span) is not list or len(span) != 2 or type(span[0]) is not int or type(span[1]) is not int:
        return False
    return 0 <= span[0] <= span[1]


def _anchor(value: Any) -> bool:  # models.AnchorItem
    value = anchor_item(value)
    if type(value) is not dict or "path" not in value or not value.keys() <= {"path", "symbol"}:
        return False
    if not _text(value["path"]) or path_problem(value["path"]) is not None:
        return False
    return value.get("symbol") is None or _text(value["symbol"])


def _summary_range(value: Any) -> bool:  # Source | list[Source] | None
    return value is None or _source(value) or _list_of(_source)(value)


# Kind → field → (check, required): the models' fields, in their order (a test compares).
_DATED: dict[str, tuple[Check, bool]] = {
    "created_at": (_timestamp, True),
    "updated_at": (_timestamp, True),
    "anchors": (_list_of(_anchor), False),
}
FIELDS: dict[Kind, dict[str, tuple[Check, bool]]] = {
    Kind.DECISION: {**_DATED, "sources": (_list_of(_source, 1), True),
                    "status": (_one_of("open", "resolved", "replaced"), True),
                    "replaced_by": (_optional(_nonempty), False)},
    Kind.REQUEST: {**_DATED, "sources": (_list_of(_source, 1), True)},
    Kind.KNOWLEDGE: {**_DATED, "kind": (_one_of("term", "policy", "rule", "fact", "howto"), True),
                     "description": (_nonempty, True), "model_invocation": (_flag, True),
                     "user_invocable": (_flag, True), "last_sources": (_list_of(_source), True)},
    Kind.WORKFLOW: {**_DATED, "description": (_nonempty, True), "auto_invoke": (_flag, True),
                    "user_invocable": (_flag, True), "requires": (_list_of(_nonempty), True)},
    Kind.SUMMARY: {"updated_at": (_timestamp, True), "last_rewritten_from_range": (_summary_range, False)},
}


def plainly_valid(kind: Kind, values: dict[str, Any]) -> bool:
    """True when the model of `kind` takes `values` (its known fields) as they are; False when it
    may not (pydantic decides)."""
    fields = FIELDS[kind]
    for name, (check, required) in fields.items():
        if name in values:
            if not check(values[name]):
                return False
        elif required:
            return False
    return values.keys() <= fields.keys()
