"""Every staging item of a run ends with an explicit disposition: integrated into named records, or
dropped with a reason. The model gives them through the `dispose` tool; the integration phase only
ends (`finish_phase`) once none is missing, and the run checks it again before the staging files
are removed. A small model that narrates, stops early or skips items cannot consume staging that
nobody looked at.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memcli.tools.failure import ToolFailure, answers
from memcli.tools.paths import NoSuchRecord, PathRefused, record_path
from memcli.tools.result import ToolResult, failure, success
from memcli.values import frozen

ACTIONS = ("integrated", "dropped")
# staging field → the word shown to the model and in the commit message
KINDS = {"decisions": "decision", "discussions": "discussion", "attempts": "attempt", "requests": "request"}


@frozen
class Item:
    id: str  # i1, i2, ... in input order: short enough for a small model to copy
    staging_id: str
    kind: str  # decision | discussion | attempt | request
    title: str

    def label(self) -> str:
        return f"{self.id} ({self.kind} {self.title!r} from {self.staging_id})"


@frozen
class Disposition:
    action: str  # integrated | dropped
    records: tuple[str, ...]
    reason: str


def number_items(staging: Any) -> list[tuple[Item, dict[str, Any]]]:
    """Each staging item with its run-wide id, in the order the model sees them."""
    out: list[tuple[Item, dict[str, Any]]] = []
    for entry in staging.entries:
        items = entry.data.items.model_dump(mode="json")
        for field, kind in KINDS.items():
            for fields in items.get(field, []):
                item = Item(f"i{len(out) + 1}", entry.id, kind, str(fields.get("title", "")))
                out.append((item, fields))
    return out


class Ledger:
    """The dispositions of one run's staging items."""

    def __init__(self, items: list[Item], root: Path) -> None:
        self.items = {item.id: item for item in items}
        self.root = root  # the scratch workspace the records live in
        self.done: dict[str, Disposition] = {}
        self.shown: set[str] = set(self.items)  # items the model has seen (batches: see reveal)

    def reveal(self, ids: list[str], only: bool = False) -> None:
        """Mark items as shown to the model (`only`: these and none else yet, for the first batch)."""
        self.shown = set(ids) if only else self.shown | set(ids)

    def missing(self) -> list[Item]:
        """Every item of the run without a disposition, shown yet or not: what the run checks."""
        return [item for item_id, item in self.items.items() if item_id not in self.done]

    def missing_shown(self) -> list[Item]:
        """The items shown so far without a disposition: what the model is asked for."""
        return [item for item in self.missing() if item.id in self.shown]

    def dropped(self) -> list[tuple[Item, Disposition]]:
        return [(self.items[i], d) for i, d in self.done.items() if d.action == "dropped"]

    def integrated(self) -> list[tuple[Item, Disposition]]:
        return [(self.items[i], d) for i, d in self.done.items() if d.action == "integrated"]

    @answers  # the tool's boundary: `records` naming no record raises ToolFailure below
    def dispose(
        self, items: list[str], action: str, reason: str, records: list[str] | None = None
    ) -> ToolResult:
        unknown = [i for i in items if i not in self.shown]
        if unknown:
            known = ", ".join(i for i in self.items if i in self.shown) or "none: no staging items shown"
            return failure("arguments", f"unknown item ids {', '.join(unknown)}; the ids are {known}")
        if not items:
            return failure("arguments", "items is empty; name the item ids (i1, i2, ...) you dispose of")
        if not reason.strip():
            return failure("arguments", "say why in `reason` (one sentence; dropped items go in the commit)")
        if action == "dropped" and records:
            return failure("arguments", "a dropped item names no records; leave `records` out")
        if action == "integrated" and not records:
            return failure("arguments", "integrated needs `records`: the paths of the records holding it")
        paths = self._records(records or [])
        for item_id in items:
            self.done[item_id] = Disposition(action, tuple(paths), reason.strip())
        left = len(self.missing_shown())
        return success(f"{len(items)} item(s) {action}; {left} item(s) still without a disposition")

    def _records(self, named: list[str]) -> list[str]:
        """The record paths `records` names (slug or path, memcli.tools.paths), each an existing
        record file of the scratch workspace; else ToolFailure for the first that is not."""
        paths: list[str] = []
        for raw in named:
            try:
                rel = record_path(self.root, raw, write=False)
            except NoSuchRecord as exc:
                message = f"records: {exc}; write the record first, then dispose of the item"
                raise ToolFailure("not-found", message) from None
            except PathRefused as exc:
                raise ToolFailure("path", f"records: {exc}", path=raw[:120]) from None
            if not (self.root / rel).is_file():
                raise ToolFailure("not-found", f"no record at {rel}; write the record first, then "
                                               "dispose of the item with its path", path=rel)
            paths.append(rel)
        return list(dict.fromkeys(paths))

    def unfinished_result(self) -> ToolResult:
        missing = self.missing_shown()
        ids = ", ".join(item.id for item in missing[:30])
        # titles came from transcripts: they go back to the model as fenced data, not in the message
        items = [{"id": i.id, "kind": i.kind, "title": i.title, "staging": i.staging_id}
                 for i in missing[:30]]
        return failure(
            "unfinished",
            f"{len(missing)} staging item(s) have no disposition yet: {ids}. Call dispose for each "
            "(integrated with the record paths, or dropped with a reason), then finish_phase again",
            items=items, fenced=(("items", "staging items without a disposition", "jsonl"),),
        )

    def stale(self) -> list[str]:
        """Integrated items whose records all vanished later in the run (merged away, deleted)."""
        return [
            f"{self.items[i].label()} names {', '.join(d.records)}, which no longer exist"
            for i, d in self.done.items()
            if d.action == "integrated" and not any((self.root / p).is_file() for p in d.records)
        ]

    def to_json(self) -> list[dict[str, Any]]:
        return [
            {"item": i, "staging": self.items[i].staging_id, "kind": self.items[i].kind,
             "title": self.items[i].title, "action": d.action, "records": list(d.records), "reason": d.reason}
            for i, d in self.done.items()
        ]


def _tool(name: str, description: str, properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    params = {"type": "object", "properties": properties, "required": required, "additionalProperties": False}
    return {"type": "function", "function": {"name": name, "description": description, "parameters": params}}


DISPOSE = _tool(
    "dispose",
    "Record what became of staging items: integrated into `records`, or dropped.",
    {
        "items": {"type": "array", "items": {"type": "string"}, "description": "i1, i2, ..."},
        "action": {"type": "string", "enum": list(ACTIONS)},
        "records": {"type": "array", "items": {"type": "string"}},
        "reason": {"type": "string"},
    },
    ["items", "action", "reason"],
)
FINISH = _tool(
    "finish_phase",
    "End the current phase when its work is complete.",
    {"note": {"type": "string"}},
    [],
)
