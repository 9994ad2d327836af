"""The staging file format: Phase 1 output waiting for consolidation (`memory/_staging/<id>.json`).

The model fills `items`; memcli attaches everything else — above all the `source`, which is a
machine fact (session id + entry range), never model output.
"""

from __future__ import annotations

import datetime as dt
import functools
import hashlib
from pathlib import Path
from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field

from memcli.atomicio import atomic_write_text
from memcli.records.models import Source
from memcli.workspace import Workspace

STAGING_VERSION: Final = 1
# Bounded strings and lists keep small local models from running on forever; llama.cpp turns the
# bounds into a grammar, and at 2 000 chars / 50 items that grammar no longer parses (the server
# dies), so the bounds stay where a real llama.cpp server was seen to work (bench/smoke_real_model.py).
_TEXT = 1_000
_TITLE = 160
_ITEMS = 20


class _Item(BaseModel):
    model_config = ConfigDict(extra="forbid")


class DecisionItem(_Item):
    title: str = Field(min_length=1, max_length=_TITLE)
    decision: str = Field(min_length=1, max_length=_TEXT)
    rationale: str = Field("", max_length=_TEXT)
    status: Literal["open", "resolved"] = "resolved"


class DiscussionItem(_Item):
    title: str = Field(min_length=1, max_length=_TITLE)
    summary: str = Field(min_length=1, max_length=_TEXT)
    settled: bool = False


class AttemptItem(_Item):
    title: str = Field(min_length=1, max_length=_TITLE)
    outcome: str = Field(min_length=1, max_length=_TEXT)
    lesson: str = Field("", max_length=_TEXT)


class RequestItem(_Item):
    title: str = Field(min_length=1, max_length=_TITLE)
    request: str = Field(min_length=1, max_length=_TEXT)


class ExtractedItems(_Item):
    """Exactly what the Phase 1 model returns. Unknown keys are rejected; empty lists are fine."""

    decisions: list[DecisionItem] = Field(default_factory=list, max_length=_ITEMS)
    discussions: list[DiscussionItem] = Field(default_factory=list, max_length=_ITEMS)
    attempts: list[AttemptItem] = Field(default_factory=list, max_length=_ITEMS)
    requests: list[RequestItem] = Field(default_factory=list, max_length=_ITEMS)


def _words_key(text: str) -> str:
    """`text` with all but its letters and digits dropped, folded: `"DecisionItem"`, `decision_item`
    and `<Decision Item>` are one key; "" when it holds no word in any script (`][`, `...`)."""
    return "".join(c for c in text.casefold() if c.isalnum())


@functools.cache
def schema_names() -> frozenset[str]:
    """The names a model may echo from the schema it was given instead of content: the models' class
    names, field names and field titles, and the JSON types, all read from the schema the model
    sees (`ExtractedItems.model_json_schema()`), as `_words_key` folds them."""
    names: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key in ("properties", "$defs") and isinstance(value, dict):
                    names.update(value)  # field names; model class names
                elif key in ("title", "type") and isinstance(value, str):
                    names.add(value)
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(ExtractedItems.model_json_schema())
    return frozenset(_words_key(name) for name in names) - {""}


def junk(text: str) -> bool:
    """Whether a title or text says nothing: no letter or digit in any script (CJK counts), or only a
    name out of the schema (`DecisionItem`, `ExtractedItems`, `title`)."""
    key = _words_key(text)
    return not key or key in schema_names()


def sifted(items: ExtractedItems) -> tuple[ExtractedItems, int]:
    """The items worth staging, and how many were dropped: those whose title or required text is
    junk (a weak model's `][`, or the schema echoed back as `{"title": "DecisionItem"}`)."""
    kept: dict[str, list[Any]] = {}
    dropped = 0
    for kind in ExtractedItems.model_fields:
        kept[kind] = []
        for item in getattr(items, kind):
            required = [name for name, f in type(item).model_fields.items() if f.is_required()]
            if any(junk(getattr(item, name)) for name in required):
                dropped += 1
            else:
                kept[kind].append(item)
    return (items.model_copy(update=kept) if dropped else items), dropped


class Usage(BaseModel):
    model_config = ConfigDict(extra="forbid")

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = None


class Untrusted(BaseModel):
    model_config = ConfigDict(extra="forbid")

    entry: int = Field(ge=0)
    text: str = Field(max_length=400)


class Provenance(BaseModel):
    """Who said what the staging file was extracted from (machine facts, like `source`): each sent
    entry's role as `[start, end, role]` runs, and instruction-shaped sentences found in tool output
    (memcli.provenance). Empty for files written before memcli recorded it."""

    model_config = ConfigDict(extra="forbid")

    roles: list[tuple[int, int, str]] = Field(default_factory=list)
    untrusted: list[Untrusted] = Field(default_factory=list, max_length=20)


class Branch(BaseModel):
    """The git branch the session worked on (machine facts, like `source`), so consolidation folds
    the items on that branch or one it was merged into (memcli.consolidate.branches). Absent in
    files written before memcli recorded it, and for a session outside git: such items belong to
    any branch."""

    model_config = ConfigDict(extra="forbid")

    name: str | None = Field(None, max_length=250)  # None: a detached HEAD (any branch)
    commit: str | None = Field(None, max_length=64)  # the branch's tip when the session was extracted
    forked_at: str | None = Field(None, max_length=64)  # where the branch was created (its reflog)
    worktree: str | None = Field(None, max_length=4096)  # the working tree the session ran in


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
    provenance: Provenance = Provenance()
    branch: Branch | None = None


def staging_id(key: str, source: Source, prompt_version: str, model: str, content: str = "") -> str:
    """A stable id for one chunk's extraction: the same text of the same span extracted the same way
    gets the same file, so a run interrupted between writing it and recording it never produces a
    duplicate (and a rewritten file, whose text differs, never reuses an old result)."""

    digest = hashlib.sha256(f"{key}\0{source.session_id}\0{source.range}\0{prompt_version}\0{model}\0"
                            f"{content}".encode()).hexdigest()[:10]
    return f"{staging_prefix(source.session_id) or 'session'}-{source.range[0]}-{source.range[1]}-{digest}"


def staging_prefix(session_id: str) -> str:
    """The session part of a staging id (file-name safe), which `memcli why` matches Sources by."""
    return "".join(c if c.isalnum() or c in "-_" else "-" for c in session_id)[:40].strip("-")


def staging_files(ws: Workspace) -> list[Path]:
    """The staging files waiting for consolidation (`memory/_staging/<id>.json`), oldest name first."""
    if not ws.staging_dir.is_dir():
        return []
    return sorted(p for p in ws.staging_dir.glob("*.json") if p.is_file() and not p.name.startswith("."))


def staging_path(staging_dir: Path, file_id: str) -> Path:
    return staging_dir / f"{file_id}.json"


def write_staging(staging_dir: Path, staging: StagingFile) -> Path:
    """Write one staging file atomically (a reader never sees half a file)."""

    path = staging_path(staging_dir, staging.id)
    atomic_write_text(path, staging.model_dump_json(indent=2) + "\n")
    return path
