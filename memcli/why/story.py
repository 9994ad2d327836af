"""The story of one record: what `memcli why` shows and the MCP tool `memcli_read` returns with
`why`, read from what already exists (see memcli.why)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from memcli.errors import UsageError
from memcli.metrics import load_metrics
from memcli.records.parse import ParsedRecord, parse_record
from memcli.recordtext import read_file
from memcli.store import RecordStore, codec, content_hash, open_store
from memcli.why.history import Change, history, refusals_here, staging_for
from memcli.why.sources import SourceStory, record_sources, trace
from memcli.workspace import KIND_DIRS, SUMMARY_PATH, Kind, Workspace, locate


@dataclass
class Story:
    path: str
    kind: str
    slug: str
    status: str | None
    replaced_by: str | None
    replaces: list[str]
    history: list[Change]
    sources: list[SourceStory]
    usage: dict[str, Any] | None
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def resolve(ws: Workspace, target: str) -> str:
    """SLUG or PATH → the workspace-relative path of one existing record (or a usage error)."""
    text = target.strip()
    if not text:
        raise UsageError("name a record: a slug (use-sqlite) or a path (memory/decisions/use-sqlite.md)")
    if "/" in text or text.endswith(".md"):
        path = Path(text)
        absolute = path if path.is_absolute() else (Path.cwd() / path)
        if not absolute.exists() and not path.is_absolute():
            absolute = ws.root / path  # a workspace-relative path given from elsewhere
        try:
            rel = absolute.resolve().relative_to(ws.root.resolve()).as_posix()
        except ValueError:
            raise UsageError(f"{target}: not inside the workspace {ws.root}") from None
        loc = locate(rel)
        if loc.kind is None:
            raise UsageError(f"{target}: not a record ({loc.problem or 'not a record location'})")
        if not (ws.root / rel).is_file():
            raise UsageError(f"{target}: no such record")
        return rel
    if text == "summary":
        if (ws.root / SUMMARY_PATH).is_file():
            return SUMMARY_PATH
        raise UsageError("this workspace has no memory/summary.md")
    found = [f"{folder}/{text}.md" for kind, folder in KIND_DIRS.items()
             if (ws.root / folder / f"{text}.md").is_file()]
    if len(found) == 1:
        return found[0]
    if len(found) > 1:
        raise UsageError(f"{text!r} names {len(found)} records: {', '.join(found)}; pass the path")
    raise UsageError(f"no record with the slug {text!r}" + _did_you_mean(ws, text))


def _did_you_mean(ws: Workspace, slug: str) -> str:
    from rapidfuzz import process  # here: only a slug no record has needs it (tests/test_lean_start.py)

    slugs = [p.stem for folder in KIND_DIRS.values() for p in (ws.root / folder).glob("*.md")]
    best = process.extractOne(slug, slugs, score_cutoff=70)
    return f"; did you mean {best[0]!r}?" if best else " (see `memcli search`)"


def _replaces(ws: Workspace, slug: str, store: RecordStore | None) -> list[str]:
    """The decisions whose `replaced_by` names `slug`: those the store keeps from its rows, the rest
    (links, or all of them without a store) read from the disk."""
    folder = KIND_DIRS[Kind.DECISION]
    out = []
    if store is not None:
        kept = store.reference_facts(Kind.DECISION.value, b"replaced_by")
        out = [path for path, (_, facts) in kept.items() if facts.replaced_by == slug]
        others = [p for p in store.odd if p.startswith(folder + "/")]
    else:
        others = [f"{folder}/{p.name}" for p in (ws.root / folder).glob("*.md")]
    for rel in others:
        full = ws.root / rel
        if rel.rpartition("/")[2].startswith(".") or not full.is_file():
            continue  # a hidden file or a folder is no record
        data = full.read_bytes()
        if slug.encode() not in data:
            continue  # cheap filter: a file that never spells the slug cannot point at it
        meta = parse_record(rel, data, Kind.DECISION, Path(rel).stem, validate=False).meta or {}
        if meta.get("replaced_by") == slug:
            out.append(rel)
    return sorted(out)


def _usage(ws: Workspace, rel: str) -> dict[str, Any] | None:
    metrics = load_metrics(ws)
    if metrics is None:
        return None
    found = metrics.get(rel)
    if found is None:
        return {"invokes": 0, "sessions": [], "rate": 0.0, "last_use": None}
    sessions = list(dict.fromkeys(i.session_id for i in found.invokes))
    return {"invokes": found.count, "sessions": sessions, "rate": round(found.rate, 3),
            "last_use": found.last_use.isoformat() if found.last_use else None}


def story(ws: Workspace, target: str, *, use_store: bool = True) -> Story:
    """The story of the record `target` names; through the record store (memcli.store) unless
    `use_store` is False (then every file is read: the same story)."""
    store = open_store(ws) if use_store else None
    if store is None:
        return _story(ws, target, None)
    with store:
        store.refresh()
        return _story(ws, target, store)


def _record(ws: Workspace, rel: str, store: RecordStore | None) -> ParsedRecord:
    """The record at `rel`, read for its raw values; rebuilt from what the store kept of it when the
    store read these same bytes."""
    loc = locate(rel)
    assert loc.kind is not None and loc.slug is not None
    data, why = read_file(ws.root / rel)  # bounded, never waits on a FIFO
    if data is None:
        raise OSError(why)
    loaded = None
    kept = store.loaded(rel) if store is not None else None
    if kept is not None and kept[1] is not None and kept[0] == content_hash(data):
        loaded = codec.decode(kept[1])
    return parse_record(rel, data, loc.kind, loc.slug, validate=False, loaded=loaded)


def _story(ws: Workspace, target: str, store: RecordStore | None) -> Story:
    rel = resolve(ws, target)
    loc = locate(rel)
    assert loc.kind is not None and loc.slug is not None
    rec = _record(ws, rel, store)
    meta = rec.meta or {}
    notes = [f"the frontmatter does not parse: {rec.parse_error}"] if rec.parse_error else []
    found = record_sources(loc.kind, meta)
    changes, note = history(ws, rel)
    if note:
        notes.append(note)
    staging_for(changes, [src for _, src, _ in found if src is not None])
    refusals_here(ws, changes)
    replaced_by = meta.get("replaced_by")
    return Story(
        path=rel, kind=loc.kind.value, slug=loc.slug,
        status=str(meta["status"]) if "status" in meta else None,
        replaced_by=str(replaced_by) if replaced_by else None,
        replaces=_replaces(ws, loc.slug, store) if loc.kind is Kind.DECISION else [],
        history=changes, sources=trace(ws, found), usage=_usage(ws, rel), notes=notes,
    )
