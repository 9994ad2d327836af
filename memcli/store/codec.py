"""What reading a record's YAML gave (`memcli.records.parse.Loaded`), as bytes the store can keep.

`marshal` is fast and needs no schema, but knows no dates. Frontmatter values are mappings,
lists, strings, numbers, booleans, nulls, dates and timestamps nearly always; dates and timestamps
become tagged tuples (YAML's safe loader never gives a tuple otherwise... except `!!omap` and
`!!pairs`, which are refused, as are sets and any other type). A refused value is simply not kept:
the record is parsed again when asked for. A timestamp's zone is rebuilt the way PyYAML builds it
(`datetime.timezone(offset)`), so the decoded value is equal and prints the same.
"""

from __future__ import annotations

import datetime as dt
import marshal
from typing import Any

_DATETIME = "\0datetime"
_DATE = "\0date"
_VERSION = 4  # marshal format
_SCALARS = (str, int, float, bool, type(None), bytes)


class Unsupported(Exception):
    """A value this codec does not keep."""


def _enc(value: Any, seen: set[int]) -> Any:
    kind = type(value)
    if kind in _SCALARS:
        return value
    if kind is dict or kind is list:
        # A container met twice is an alias: kept as a tree it would cost its expanded size
        # (9 levels of 9 aliases: 387 million values), so such a value is not kept. The readers
        # refuse aliases before this (memcli.plainyaml); this keeps the codec linear regardless.
        if id(value) in seen:
            raise Unsupported
        seen.add(id(value))
        if kind is list:
            return [_enc(item, seen) for item in value]
        out = {}
        for key, item in value.items():
            if type(key) not in _SCALARS:
                raise Unsupported
            out[key] = _enc(item, seen)
        return out
    if kind is dt.datetime:
        zone = value.tzinfo
        if zone is not None and type(zone) is not dt.timezone:
            raise Unsupported
        offset = zone.utcoffset(None) if zone is not None else None
        micro = None if offset is None else offset // dt.timedelta(microseconds=1)
        return (_DATETIME, value.year, value.month, value.day, value.hour, value.minute, value.second,
                value.microsecond, micro, value.fold)
    if kind is dt.date:
        return (_DATE, value.year, value.month, value.day)
    raise Unsupported


def _dec(value: Any) -> Any:
    kind = type(value)
    if kind is dict:
        return {key: _dec(item) for key, item in value.items()}
    if kind is list:
        return [_dec(item) for item in value]
    if kind is tuple:
        if value[0] == _DATE:
            return dt.date(*value[1:])
        year, month, day, hour, minute, second, us, micro, fold = value[1:]
        zone = None if micro is None else dt.timezone(dt.timedelta(microseconds=micro))
        return dt.datetime(year, month, day, hour, minute, second, us, tzinfo=zone, fold=fold)
    return value


def encode(loaded: tuple[Any, dict[str, int], str | None, int | None]) -> bytes | None:
    """The bytes of `loaded`, or None when it holds a value this codec does not keep."""
    value, lines, error, line = loaded
    try:
        return marshal.dumps((_enc(value, set()), lines, error, line), _VERSION)
    except (Unsupported, ValueError, RecursionError):  # RecursionError: nesting past Python's stack
        return None


def decode(blob: bytes) -> tuple[Any, dict[str, int], str | None, int | None]:
    value, lines, error, line = marshal.loads(blob)
    return _dec(value), lines, error, line
