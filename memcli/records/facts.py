"""What the whole-workspace reference rules need from one record: small enough to keep per record
(the Linter's snapshot, the record store)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from memcli.values import frozen

if TYPE_CHECKING:
    from memcli.records.parse import ParsedRecord

# The byte strings the workspace rules pre-filter on (cheaper than parsing every record).
NEEDLES = (b"replaced_by", b"requires", b"anchors")


def needles_in(data: bytes | None) -> tuple[bytes, ...]:
    """Which of NEEDLES occur in a file's bytes."""
    return tuple(n for n in NEEDLES if n in data) if data is not None else ()


@frozen
class RecordFacts:
    """What the whole-workspace reference rules need from one record (small enough to cache)."""

    replaced_by: str | None = None
    replaced_by_line: int | None = None
    requires: tuple[str, ...] | None = None
    requires_line: int | None = None
    needles: tuple[bytes, ...] = ()  # which of NEEDLES occur in the file's bytes

    @classmethod
    def of(cls, rec: ParsedRecord, data: bytes | None) -> RecordFacts:
        return cls(*fact_values(rec), needles_in(data))


FactValues = tuple[str | None, int | None, tuple[str, ...] | None, int | None]
NO_VALUES: FactValues = (None, None, None, None)


def fact_values(rec: ParsedRecord) -> FactValues:
    """RecordFacts without the needles, as a tuple: what the record store keeps of each record."""
    meta = rec.meta or {}
    target = meta.get("replaced_by")
    requires = meta.get("requires")
    lines = rec.key_lines
    return (target if isinstance(target, str) else None, lines.get("replaced_by"),
            tuple(r for r in requires if isinstance(r, str)) if isinstance(requires, list) else None,
            lines.get("requires"))


NO_FACTS = RecordFacts()
