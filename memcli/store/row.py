"""One record file, parsed once, as the store keeps it: what every reader needs from it.

The parse is the Linter's: for the kinds the resident context shows (knowledge, the summary) the
frontmatter is validated against the kind's model, so "valid" there is exactly what `memcli lint`
calls a record without parse or schema errors (the other kinds' validity is no reader's business
here: the Linter and gc-report validate what they read, from what the store kept). From it come:
* the search fields (filters, the hit's description, the body for snippets; the terms are derived
  from these later, see postings.py);
* the resident-context fields of valid records: `updated_at` as a timestamp, and for knowledge the
  one-line description of its index line;
* the anchors the record names (memcli.records.anchors.anchors_of);
* the reference facts of the Linter's workspace rules (memcli.records.facts);
* where the full YAML parser read the frontmatter, what it gave (codec.py), so a reader that needs
  the whole parsed record (a lint rule, gc-report, why) rebuilds it without composing the YAML
  again. The plain frontmatter of nearly every record is not kept: the plain reader reads it again
  in ~35 us, where keeping it cost the build ~38 us a record (encoding, sending it from a helper,
  storing it) and rebuilding it ~17.
"""

from __future__ import annotations

import json
import marshal
from typing import Any

from memcli.records.anchors import anchors_of
from memcli.records.facts import NEEDLES, NO_VALUES, FactValues, fact_values, needles_in
from memcli.records.fields import timestamp
from memcli.records.parse import parse_record
from memcli.recordtext import one_line
from memcli.store import codec
from memcli.workspace import Kind, locate

_SUMMARY_CHARS = 160
_VALIDATED = (Kind.KNOWLEDGE, Kind.SUMMARY)  # the kinds whose validity a reader of the store asks

# The columns of one row, in order (docs, then texts, then the kept YAML): a plain tuple, so a row
# crosses a pipe from a helper process with marshal.
FIELDS = ("type", "slug", "kind", "status", "replaced_by", "model_invocation", "parse_error", "valid",
          "updated_ts", "entry", "anchors", "needles", "facts", "description", "summary", "body", "loaded")


def _str(meta: dict, key: str) -> str | None:
    value = meta.get(key)
    return value if isinstance(value, str) and value.strip() else None


def first_line(body: str) -> str:
    for line in body.splitlines():
        line = line.strip().lstrip("#").strip()
        if line:
            return line[:_SUMMARY_CHARS] + ("…" if len(line) > _SUMMARY_CHARS else "")
    return ""


def needle_bits(data: bytes) -> int:
    """Which of NEEDLES the file's bytes hold (memcli.records.facts.needles_in), one bit each."""
    return sum(1 << NEEDLES.index(needle) for needle in needles_in(data))


def facts_blob(values: FactValues) -> bytes | None:
    """The reference facts minus the needles (a column of their own), or None when empty."""
    return None if values == NO_VALUES else marshal.dumps(values)


def read_row(rel: str, data: bytes) -> tuple[Any, ...]:
    """The row of the record file at `rel` holding `data` (FIELDS, in order). A file that is not a
    valid record is kept too, by its whole text, flagged with its parse error, so it can still be
    found and fixed."""
    loc = locate(rel)
    assert loc.kind is not None and loc.slug is not None
    rec = parse_record(rel, data, loc.kind, loc.slug, validate=loc.kind in _VALIDATED)
    meta = rec.meta or {}
    body = rec.body if rec.meta is not None else rec.text
    description = _str(meta, "description") or ""
    invocation = meta.get("model_invocation", meta.get("model_invokation"))
    updated_ts = entry = None
    if rec.valid:  # the model's values, read without building it (pydantic stays unloaded)
        updated_ts = timestamp(meta["updated_at"]).timestamp()
        if loc.kind is Kind.KNOWLEDGE:
            entry = one_line(meta["description"])
    anchors = [[a.path, a.symbol] for a in anchors_of(meta)] if "anchors" in meta else []
    return (
        loc.kind.value, loc.slug, _str(meta, "kind"), _str(meta, "status"), _str(meta, "replaced_by"),
        invocation if isinstance(invocation, bool) else None, rec.parse_error,
        rec.valid if loc.kind in _VALIDATED else None,
        updated_ts, entry, json.dumps(anchors, ensure_ascii=False) if anchors else None,
        needle_bits(data), facts_blob(fact_values(rec)), description, description or first_line(body), body,
        codec.encode(rec.loaded) if rec.loaded is not None and not rec.plain_yaml else None,
    )
