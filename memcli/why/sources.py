"""A record's Sources traced back through the session adapters: who said the entries each one
points to, and a short, redacted excerpt of them."""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memcli.agents.documents import is_document_id
from memcli.agents.documents.discovery import DocumentRefused, recorded, resolve, session
from memcli.errors import MemcliError
from memcli.extract.ledger import Ledger
from memcli.imports.drift import note
from memcli.provenance import role_of
from memcli.records.models import Source, cited_sources
from memcli.secrets import redact
from memcli.sessions.discover import UnknownSession, discover, find_session
from memcli.sessions.query import select
from memcli.sessions.render import entry_text
from memcli.transcript.model import SessionInfo
from memcli.workspace import Kind, Workspace

EXCERPT_CHARS = 280


@dataclass
class SourceStory:
    field: str
    source: str
    found: bool
    agent: str | None = None
    roles: list[str] = dataclasses.field(default_factory=list)  # (`field` is a member here)
    excerpt: str | None = None
    note: str | None = None


def record_sources(kind: Kind, meta: dict[str, Any]) -> list[tuple[str, Source | None, Any]]:
    """(field, Source or None when invalid, raw value) for every Source-typed field of a record."""
    out: list[tuple[str, Source | None, Any]] = []
    for name, raw in cited_sources(kind, meta):
        try:
            out.append((name, Source.model_validate(raw), raw))
        except ValueError:
            out.append((name, None, raw))
    return out


def extracted_files(ws: Workspace, session_ids: list[str]) -> dict[str, list[Path]]:
    """The files `memcli extract` read each of these sessions from (its ledger keeps them, read
    once), for the transcripts that discovery does not find: those given with `extract --path`."""
    try:
        ledger = Ledger.open(ws.clone_state_dir)
    except OSError:  # no state folder that can be read (a file in its place): nothing recorded
        return {}
    return {sid: files for sid in dict.fromkeys(session_ids) if (files := ledger.files_of(sid))}


def find_transcript(ws: Workspace, session_id: str, paths: list[Path] | None = None,
                    scan: bool = False) -> SessionInfo:
    """`find_session`, and when discovery does not find the session, the files extract read it from."""
    try:
        return find_session(ws, session_id, paths=paths, scan=scan)
    except UnknownSession:
        known = [] if paths else extracted_files(ws, [session_id]).get(session_id, [])
        if not known:
            raise
        return find_session(ws, session_id, paths=known, scan=scan)


def trace(ws: Workspace, found: list[tuple[str, Source | None, Any]]) -> list[SourceStory]:
    """Each Source with the roles and a redacted excerpt of the entries it points to."""
    wanted = [src for _, src, _ in found if src is not None]
    infos = _documents(ws, wanted)  # imported files (memcli import): found by their id, not discovered
    wanted = [src for src in wanted if not is_document_id(src.session_id)]
    if wanted:
        sessions = discover(ws, scan=False)
        ids = {i.session_id for i in sessions}
        for cited in wanted:
            for candidate in sessions:
                if candidate.session_id == cited.session_id or (
                        cited.session_id not in ids and candidate.session_id.startswith(cited.session_id)):
                    infos.setdefault(cited.session_id, candidate)
        missing = [cited.session_id for cited in wanted if cited.session_id not in infos]
        for session_id, known in (extracted_files(ws, missing) if missing else {}).items():
            for candidate in discover(ws, paths=known, scan=False):
                if candidate.session_id.startswith(session_id):
                    infos.setdefault(session_id, candidate)
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
        changed = _changed(ws, src) if is_document_id(src.session_id) else None
        out.append(SourceStory(name, str(src), True, agent=info.agent, roles=roles, excerpt=excerpt,
                               note=changed))
    return out


def _changed(ws: Workspace, src: Source) -> str | None:
    """A document is edited, a transcript never: say when the cited lines changed since the import."""
    try:
        found = resolve(src.session_id, ws.root, ws.config.sessions, recorded(ws.state_dir, src.session_id))
    except DocumentRefused:
        return None
    return note(ws.state_dir, found, src.range, ws.root) if found is not None else None


def _documents(ws: Workspace, sources: list[Source]) -> dict[str, Any]:
    out = {}
    for src in sources:
        if is_document_id(src.session_id) and src.session_id not in out:
            try:
                info = session(src.session_id, ws.root, ws.config.sessions, ws.state_dir)
            except DocumentRefused:
                continue  # a Source naming a file no import read here: not shown (see resolve)
            if info is not None:
                out[src.session_id] = info
    return out
