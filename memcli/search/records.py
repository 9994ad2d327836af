"""A record file as the index sees it: the fields filters need and the terms of each column."""

from __future__ import annotations

from dataclasses import dataclass

from memcli.records import parse_record
from memcli.search.spelling import words as spelling_words
from memcli.search.text import index_terms
from memcli.workspace import locate

_SUMMARY_CHARS = 160


@dataclass(frozen=True)
class IndexedRecord:
    path: str
    type: str
    slug: str
    kind: str | None
    status: str | None
    replaced_by: str | None
    description: str  # the description field ("" when the kind has none)
    summary: str  # what a hit shows as its description: the field, else the body's first line
    body: str
    model_invocation: bool | None
    parse_error: str | None
    slug_terms: str
    description_terms: str
    body_terms: str
    words: str  # for the spelling signal (memcli.search.spelling)


def _str(meta: dict, key: str) -> str | None:
    value = meta.get(key)
    return value if isinstance(value, str) and value.strip() else None


def _first_line(body: str) -> str:
    for line in body.splitlines():
        line = line.strip().lstrip("#").strip()
        if line:
            return line[:_SUMMARY_CHARS] + ("…" if len(line) > _SUMMARY_CHARS else "")
    return ""


def read_record(rel: str, data: bytes) -> IndexedRecord:
    """Index fields of one file. A file that is not a valid record is indexed by its whole text (and
    its path), flagged with the parse error, so it can still be found and fixed."""
    loc = locate(rel)
    assert loc.kind is not None and loc.slug is not None
    # kind=None: read the frontmatter without validating it; the Linter is the place for that.
    parsed = parse_record(rel, data, None, loc.slug)
    meta = parsed.meta or {}
    body = parsed.body if parsed.meta is not None else parsed.text
    description = _str(meta, "description") or ""
    invocation = meta.get("model_invocation", meta.get("model_invokation"))
    slug_text = loc.slug if parsed.ok else f"{loc.slug} {rel}"
    return IndexedRecord(
        path=rel,
        type=loc.kind.value,
        slug=loc.slug,
        kind=_str(meta, "kind"),
        status=_str(meta, "status"),
        replaced_by=_str(meta, "replaced_by"),
        description=description,
        summary=description or _first_line(body),
        body=body,
        model_invocation=invocation if isinstance(invocation, bool) else None,
        parse_error=parsed.parse_error,
        slug_terms=index_terms(slug_text),
        description_terms=index_terms(description),
        body_terms=index_terms(body),
        words=spelling_words(f"{loc.slug}\n{description}\n{body}"),
    )
