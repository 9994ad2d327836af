"""`memcli why SLUG|PATH`: a record's whole story on one screen.

Everything here is read from what already exists, nothing is stored for it: git history of the file
(consolidation commits carry the operation, category and reason of each file they touched, and the
tool calls the run refused; any other commit is a human edit), the record's Sources traced back
through the session adapters (a short, redacted excerpt of each, with the roles of the entries it
points to), the usage figures `memcli metrics` saved, and the `replaced_by` links in both directions.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from memcli.agents.documents import is_document_id
from memcli.errors import EXIT_OK, MemcliError, UsageError
from memcli.gc.drift import git_text
from memcli.provenance import role_of
from memcli.records.models import Source, cited_sources
from memcli.records.parse import ParsedRecord, parse_record
from memcli.staging import staging_prefix
from memcli.store import RecordStore, codec, content_hash, open_store
from memcli.workspace import KIND_DIRS, SUMMARY_PATH, Kind, Workspace, locate

RUN_TRAILER = "Memcli-Run"  # the trailer consolidation writes (memcli.consolidate.gitops)
REFUSED_TRAILER = "Memcli-Refused-Calls"  # and its count of refused tool calls (consolidate.message)
EXCERPT_CHARS = 280
_FILE_LINE = re.compile(r"^- (added|updated|replaced|dropped) (\S+?)(?: \[([^\]]*)\])? (\S+) → (\S+) chars$")
_STAGING_ID = re.compile(r"\b([\w-]+)-(\d+)-(\d+)-([0-9a-f]{10})\b")
_REFUSED_LINE = re.compile(r"^- (\S+) (\S+): (\S.*)$")  # `- memory_write memory/decisions/x.md: code`


@dataclass
class Change:
    commit: str
    date: str
    author: str
    by: str  # "consolidate" (with run id) or "human"
    subject: str
    path: str  # the record's path in that commit (renames are followed)
    run_id: str | None = None
    outcome: str | None = None
    categories: list[str] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)
    size: str | None = None
    staging: list[str] = field(default_factory=list)
    refused: int = 0  # tool calls the run refused (a poisoning attempt stopped, a path outside memory)
    refusals: list[dict[str, Any]] = field(default_factory=list)  # tool, code, path (and line, when local)


@dataclass
class SourceStory:
    field: str
    source: str
    found: bool
    agent: str | None = None
    roles: list[str] = field(default_factory=list)
    excerpt: str | None = None
    note: str | None = None


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
    from rapidfuzz import process

    slugs = [p.stem for folder in KIND_DIRS.values() for p in (ws.root / folder).glob("*.md")]
    best = process.extractOne(slug, slugs, score_cutoff=70)
    return f"; did you mean {best[0]!r}?" if best else " (see `memcli search`)"


# ---------------------------------------------------------------- git history


def history(ws: Workspace, rel: str) -> tuple[list[Change], str | None]:
    """Every commit that touched the record, newest first (renames followed); a note when git has none."""
    top = git_text(ws.root, "rev-parse", "--show-toplevel")
    if top is None:
        return [], "not a git repository: no history"
    top_path = Path(top.strip())
    prefix = ws.root.resolve().relative_to(top_path.resolve()).as_posix()
    prefix = "" if prefix == "." else prefix + "/"
    raw = git_text(top_path, "log", "--follow", "--name-only", "-z",
               "--format=%x01%H%x00%aI%x00%an%x00%B%x00", "--", prefix + rel)
    if raw is None:
        return [], "no commit yet"
    out = []
    for chunk in raw.split("\x01")[1:]:
        parts = chunk.split("\x00")
        sha, date, author, body = parts[0], parts[1], parts[2], parts[3]
        names = [p.strip("\n") for p in parts[4:] if p.strip("\n")]
        path = (names[0] if names else prefix + rel).removeprefix(prefix)
        out.append(_change(sha, date, author, body, path))
    if not out:
        return [], "not committed yet"
    return out, None


def _change(sha: str, date: str, author: str, body: str, path: str) -> Change:
    lines = body.strip("\n").splitlines()
    subject = lines[0] if lines else ""
    run = next((ln.split(":", 1)[1].strip() for ln in lines if ln.startswith(f"{RUN_TRAILER}:")), None)
    change = Change(sha, date, author, "consolidate" if run else "human", subject, path, run_id=run)
    if run is None:
        return change
    mine = listing = False
    for line in lines:
        key, _, value = line.partition(":")
        if key == REFUSED_TRAILER and value.strip().isdigit():
            change.refused = int(value)
        listing = line.startswith("Refused tool calls (") or (listing and line.startswith("- "))
        refused = _REFUSED_LINE.match(line) if listing else None
        if refused:
            change.refusals.append({"tool": refused.group(1), "path": refused.group(2),
                                    "code": refused.group(3)})
            continue
        match = _FILE_LINE.match(line)
        if match:
            mine = match.group(2) == path
            if mine:
                change.outcome = match.group(1)
                change.categories = [c.strip() for c in (match.group(3) or "").split(",") if c.strip()]
                change.size = f"{match.group(4)} → {match.group(5)} chars"
            continue
        if mine and line.startswith("    "):
            change.reasons.append(line.strip())
        elif not line.startswith("    "):
            mine = False
    change.staging = list(dict.fromkeys(m.group(0) for m in _STAGING_ID.finditer(body)))
    return change


def _refusals_here(ws: Workspace, changes: list[Change]) -> None:
    """A run this machine recorded (runs.json) gives each refused call with its reason; the commit
    message alone names the tool, the target and the rule."""
    from memcli import history as runs

    for change in changes:
        run = runs.find(ws, "consolidate", change.run_id) if change.run_id else None
        if run is not None and isinstance(run.get("refusals"), list):
            change.refusals = run["refusals"]
            change.refused = int(run.get("refused") or len(change.refusals))


def _staging_for(changes: list[Change], sources: list[Source]) -> None:
    """Keep, for each consolidation, only the staging items whose span one of the record's Sources
    overlaps: those are the items the record came from (ids name their session and range)."""
    for change in changes:
        keep = []
        for item in change.staging:
            match = _STAGING_ID.fullmatch(item)
            assert match is not None
            start, end = int(match.group(2)), int(match.group(3))
            for src in sources:
                same = match.group(1) == staging_prefix(src.session_id)
                if same and src.range[0] <= end and src.range[1] >= start:
                    keep.append(item)
                    break
        change.staging = keep


# ---------------------------------------------------------------- sources


def record_sources(kind: Kind, meta: dict[str, Any]) -> list[tuple[str, Source | None, Any]]:
    """(field, Source or None when invalid, raw value) for every Source-typed field of a record."""
    out: list[tuple[str, Source | None, Any]] = []
    for name, raw in cited_sources(kind, meta):
        try:
            out.append((name, Source.model_validate(raw), raw))
        except ValueError:
            out.append((name, None, raw))
    return out


def trace(ws: Workspace, found: list[tuple[str, Source | None, Any]]) -> list[SourceStory]:
    """Each Source with the roles and a redacted excerpt of the entries it points to."""
    from memcli.secrets import redact
    from memcli.sessions.commands import select
    from memcli.sessions.discover import discover
    from memcli.sessions.render import entry_text

    wanted = [src for _, src, _ in found if src is not None]
    infos = _documents(ws, wanted)  # imported files (memcli import): found by their id, not discovered
    wanted = [src for src in wanted if not is_document_id(src.session_id)]
    if wanted:
        sessions = discover(ws, scan=False)
        ids = {i.session_id for i in sessions}
        for src in wanted:
            for info in sessions:
                if info.session_id == src.session_id or (
                        src.session_id not in ids and info.session_id.startswith(src.session_id)):
                    infos.setdefault(src.session_id, info)
    out = []
    for name, src, raw in found:
        if src is None:
            out.append(SourceStory(name, json.dumps(raw, ensure_ascii=False, default=str), False,
                                   note="not a valid Source (see `memcli lint`)"))
            continue
        info = infos.get(src.session_id)
        if info is None:
            what = "document" if is_document_id(src.session_id) else "transcript"
            out.append(SourceStory(name, str(src), False, note=f"{what} not on this machine"))
            continue
        try:
            entries = select(info, src.range)
        except (MemcliError, OSError) as exc:  # out of range, unreadable: said, not fatal
            out.append(SourceStory(name, str(src), False, agent=info.agent, note=str(exc)))
            continue
        roles = list(dict.fromkeys(role_of(e) for e in entries))
        text, _ = redact("\n".join(entry_text(e) for e in entries))
        excerpt = text if len(text) <= EXCERPT_CHARS else text[:EXCERPT_CHARS].rstrip() + "…"
        changed = _changed(ws, src, info) if is_document_id(src.session_id) else None
        out.append(SourceStory(name, str(src), True, agent=info.agent, roles=roles, excerpt=excerpt,
                               note=changed))
    return out


def _changed(ws: Workspace, src: Source, info: Any) -> str | None:
    """A document is edited, a transcript never: say when the cited lines changed since the import."""
    from memcli.agents.documents.discovery import locate
    from memcli.imports.drift import note

    found = locate(src.session_id, ws.root, ws.config.sessions)
    return note(ws.state_dir, found, src.range, ws.root) if found is not None else None


def _documents(ws: Workspace, sources: list[Source]) -> dict[str, Any]:
    from memcli.agents.documents.discovery import session

    out = {}
    for src in sources:
        if is_document_id(src.session_id) and src.session_id not in out:
            info = session(src.session_id, ws.root, ws.config.sessions)
            if info is not None:
                out[src.session_id] = info
    return out


# ---------------------------------------------------------------- the rest


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
    from memcli.metrics import load_metrics

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
    data = (ws.root / rel).read_bytes()
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
    _staging_for(changes, [src for _, src, _ in found if src is not None])
    _refusals_here(ws, changes)
    replaced_by = meta.get("replaced_by")
    return Story(
        path=rel, kind=loc.kind.value, slug=loc.slug,
        status=str(meta["status"]) if "status" in meta else None,
        replaced_by=str(replaced_by) if replaced_by else None,
        replaces=_replaces(ws, loc.slug, store) if loc.kind is Kind.DECISION else [],
        history=changes, sources=trace(ws, found), usage=_usage(ws, rel), notes=notes,
    )


def render(s: Story) -> str:
    lines = [f"{s.path} · {s.kind}" + (f" · {s.status}" if s.status else "")]
    if s.replaced_by:
        lines.append(f"  replaced by: {s.replaced_by}")
    for old in s.replaces:
        lines.append(f"  replaces: {old}")
    lines.extend(f"  note: {n}" for n in s.notes)
    lines += ["", f"History ({len(s.history)} commits, newest first):"]
    if not s.history:
        lines.append("  (none)")
    for c in s.history:
        who = f"consolidate run {c.run_id}" if c.by == "consolidate" else f"human: {c.author}"
        lines.append(f"  {c.commit[:7]} {c.date[:10]} {who}")
        if c.by == "consolidate":
            tag = f" [{', '.join(c.categories)}]" if c.categories else ""
            lines.append(f"    {c.outcome or 'touched'}{tag}" + (f" {c.size}" if c.size else ""))
            lines.extend(f"    {r}" for r in c.reasons)
            lines.extend(f"    from staging item {item}" for item in c.staging)
            if c.refused:
                lines.append(f"    the run refused {c.refused} tool call{'s' if c.refused > 1 else ''}:")
            for r in c.refusals:
                why = f" ({r['line']})" if r.get("line") else ""
                lines.append(f"      {r['tool']} {r.get('path') or '-'}: {r['code']}{why}")
        else:
            lines.append(f"    {c.subject}")
        if c.path != s.path:
            lines.append(f"    (then named {c.path})")
    lines += ["", f"Sources ({len(s.sources)}):"]
    if not s.sources:
        lines.append("  (none)")
    for src in s.sources:
        where = f"  {src.source} ({src.field})"
        if not src.found:
            lines.append(f"{where}: {src.note}")
            continue
        lines.append(f"{where} · {src.agent} · said by {', '.join(src.roles) or 'nobody'}")
        if src.note:
            lines.append(f"    note: {src.note}")
        lines.extend("    " + ln for ln in (src.excerpt or "").splitlines())
    lines += ["", "Used by:"]
    if s.usage is None:
        lines.append("  no usage counted yet (run `memcli metrics`)")
    elif not s.usage["invokes"]:
        lines.append("  no session has read or named it")
    else:
        lines.append(f"  {s.usage['invokes']} invokes in {len(s.usage['sessions'])} sessions, "
                     f"last {s.usage['last_use'] or '?'}: {', '.join(s.usage['sessions'][:5])}"
                     + (" …" if len(s.usage["sessions"]) > 5 else ""))
    return "\n".join(lines)


def run(ws: Workspace, target: str, *, as_json: bool = False) -> int:
    s = story(ws, target)
    if as_json:
        print(json.dumps(s.to_json(), ensure_ascii=False, indent=2))
    else:
        print(render(s))
    return EXIT_OK
