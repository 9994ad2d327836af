"""Field-by-field three-way merge of two versions of a record's frontmatter, and of its body.

Each field keeps the lines one side wrote it in whenever the merged value is that side's value, so
a clean merge reads like a file someone wrote, not like a re-serialisation. Fields with a known
meaning merge by it: Source lists are the union (a side's Source is never dropped), `created_at`
the earliest, `updated_at` the latest, a `replaced` status with its `replaced_by` beats
`open`/`resolved`, `anchors` merge item by item. Any other field changed on one side takes that
side; changed on both sides to different values, it is a conflict, written with git's markers
around the two sides' lines.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import yaml

from memcli import git
from memcli.merge.side import Side

SOURCE_KEYS = frozenset({"sources", "last_sources", "last_rewritten_from_range"})
# Lists of independent items (code anchors): merged item by item, each side's additions and removals kept.
SET_KEYS = frozenset({"anchors"})
MARKER = git.MARKER
_MISSING = object()


@dataclass
class FieldsResult:
    lines: list[str]  # the merged frontmatter, conflict hunks included
    conflicts: list[str] = field(default_factory=list)  # the fields in conflict


def _norm(value: Any) -> Any:
    """A comparable form that tells `1` from `True` and `"1"` from `1`."""
    if isinstance(value, dict):
        return ("map", tuple(sorted((str(k), _norm(v)) for k, v in value.items())))
    if isinstance(value, list):
        return ("seq", tuple(_norm(v) for v in value))
    return (type(value).__name__, value)


def _same(a: Any, b: Any) -> bool:
    if a is _MISSING or b is _MISSING:
        return a is b
    return _norm(a) == _norm(b)


def _when(value: Any) -> dt.datetime | None:
    if isinstance(value, str):
        try:
            value = dt.datetime.fromisoformat(value.strip().replace("z", "Z").replace("Z", "+00:00"))
        except ValueError:
            return None
    if isinstance(value, dt.datetime) and value.utcoffset() is not None:
        return value
    return None


def _source_list(value: Any) -> list[Any] | None:
    """A Source field as a list (a summary's range may be one Source or a list); None if neither."""
    if value is _MISSING or value is None:
        return []
    if isinstance(value, dict):
        return [value]
    return value if isinstance(value, list) else None


def _source_key(item: Any) -> Any:
    if isinstance(item, dict) and set(item) == {"session_id", "range"} and isinstance(item["range"], list):
        return ("source", str(item["session_id"]), tuple(_norm(x) for x in item["range"]))
    return _norm(item)


class _IndentDumper(yaml.SafeDumper):
    """Block lists indented under their key (`  - session_id: ...`), as records are written."""

    def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:
        super().increase_indent(flow, False)


def render(key: str, value: Any) -> list[str]:
    text = yaml.dump({key: value}, Dumper=_IndentDumper, allow_unicode=True, sort_keys=False,
                     default_flow_style=None, width=10_000)
    return text.rstrip("\n").split("\n")


class _Merge:
    def __init__(self, base: Side, ours: Side, theirs: Side) -> None:
        self.base, self.ours, self.theirs = base, ours, theirs
        self.out: list[str] = list(ours.preamble if ours.present else theirs.preamble)
        self.conflicts: list[str] = []

    def value(self, side: Side, key: str) -> Any:
        return side.values.get(key, _MISSING) if key in side.spans else _MISSING

    def take(self, side: Side, key: str) -> None:
        self.out.extend(side.spans.get(key, []))  # absent on that side: the field is dropped

    def conflict(self, key: str) -> None:
        self.conflicts.append(key)
        self.out += ["<" * MARKER + " ours", *self.ours.spans.get(key, []), "=" * MARKER,
                     *self.theirs.spans.get(key, []), ">" * MARKER + " theirs"]

    def three_way(self, key: str) -> Side | None:
        """The side whose value the field takes, or None when both changed it differently."""
        o, a, b = (self.value(s, key) for s in (self.base, self.ours, self.theirs))
        if _same(a, b) or _same(b, o):
            return self.ours
        if _same(a, o):
            return self.theirs
        return None

    def generic(self, key: str) -> None:
        side = self.three_way(key)
        if side is None:
            self.conflict(key)
        else:
            self.take(side, key)

    def sources(self, key: str) -> None:
        a, b = (_source_list(self.value(s, key)) for s in (self.ours, self.theirs))
        if a is None or b is None:
            self.generic(key)
            return
        union, seen = [], set()
        for item in (*a, *b):
            ident = _source_key(item)
            if ident not in seen:
                seen.add(ident)
                union.append(item)
        for side in (self.ours, self.theirs):
            if _same(self.value(side, key), union) or (
                len(union) == 1 and _same(self.value(side, key), union[0])
            ):
                self.take(side, key)
                return
        self.out += render(key, union)

    def item_set(self, key: str) -> None:
        """A three-way merge of a list's items: an item stays if both sides keep it or one side
        added it; one side's removal (a fixed anchor) is not undone by the other side keeping it."""
        lists = [self.value(s, key) for s in (self.base, self.ours, self.theirs)]
        o, a, b = ([] if v is _MISSING or v is None else v for v in lists)
        if not all(isinstance(v, list) for v in (o, a, b)):
            self.generic(key)
            return
        base, ours, theirs = ({_norm(x) for x in v} for v in (o, a, b))
        merged = [x for x in a if _norm(x) in theirs or _norm(x) not in base]
        merged += [x for x in b if _norm(x) not in ours and _norm(x) not in base]
        for side in (self.ours, self.theirs):
            if _same(self.value(side, key), merged):
                self.take(side, key)
                return
        if merged:
            self.out += render(key, merged)

    def timestamp(self, key: str, latest: bool) -> None:
        a, b = (_when(self.value(s, key)) for s in (self.ours, self.theirs))
        if a is None or b is None:
            self.generic(key)
            return
        self.take(self.theirs if (b > a if latest else b < a) else self.ours, key)

    def status_winner(self) -> Side | None:
        """A `replaced` status beats `open`/`resolved` when the two sides disagree on it."""
        if self.three_way("status") is not None:
            return None
        a, b = self.value(self.ours, "status"), self.value(self.theirs, "status")
        if (a == "replaced") != (b == "replaced"):
            return self.ours if a == "replaced" else self.theirs
        return None


def _keys(ours: Side, theirs: Side) -> Iterator[str]:
    yield from ours.keys
    yield from (k for k in theirs.keys if k not in ours.spans)


def merge_fields(base: Side, ours: Side, theirs: Side) -> FieldsResult:
    m = _Merge(base, ours, theirs)
    winner = m.status_winner()
    for key in _keys(ours, theirs):
        if winner is not None and key in ("status", "replaced_by"):
            m.take(winner, key)
        elif key in SOURCE_KEYS:
            m.sources(key)
        elif key in SET_KEYS:
            m.item_set(key)
        elif key in ("created_at", "updated_at"):
            m.timestamp(key, latest=key == "updated_at")
        else:
            m.generic(key)
    return FieldsResult(m.out, m.conflicts)


def merge_body(base: str, ours: str, theirs: str) -> tuple[str, int]:
    """(merged body, number of conflict hunks), like `git merge-file` with ours/theirs labels."""
    if ours == theirs or theirs == base:
        return ours, 0
    if ours == base:
        return theirs, 0
    done = git.merge_file(ours.encode("utf-8"), base.encode("utf-8"), theirs.encode("utf-8"))
    if done.returncode < 0 or done.returncode > 127:
        raise OSError(f"git merge-file failed: {done.stderr.decode(errors='replace').strip()}")
    return done.stdout.decode("utf-8"), done.returncode
