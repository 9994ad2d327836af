"""Which session files belong to a workspace, and finding one session by id.

Each agent says where it keeps its sessions (its `discovery.py` under memcli/agents/, listed in
memcli/agents/registry.py): agents keep transcripts in their own home folders, keyed by the working
directory, which `[sessions]` config (`claude_home`, `codex_home`, `gemini_home`, `copilot_home`,
`pi_home`, `opencode_home`) or the agent's own environment variable moves; an agent that keeps every
folder's sessions in one file (OpenCode's database) says which of them are the workspace's (its
discovery's `owns`). `[sessions] paths` adds files or folders; explicit `paths` replace it all, and a
file given explicitly is read whole. In a folder given explicitly, a file is read when an agent says
it looks like its transcript.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable
from pathlib import Path

from memcli.agents import documents, registry
from memcli.config import SessionsConfig
from memcli.errors import MemcliError, UsageError
from memcli.sessions.reader import scan as scan_info
from memcli.sessions.reader import sessions_in
from memcli.transcript.base import SessionReadError, wal_stat
from memcli.transcript.cache import ScanCache
from memcli.transcript.model import SessionInfo
from memcli.workspace import Workspace


def _walk(path: Path) -> Iterable[Path]:
    """The transcript-looking files under a folder given explicitly."""
    if not path.exists():
        raise SessionReadError(f"{path}: no such file or folder")
    if path.is_file():
        yield path
        return
    looks = [agent.load().discovery.is_transcript for agent in registry.AGENTS]
    for found in sorted(path.rglob("*")):
        if found.is_file() and any(check(found) for check in looks):
            yield found


def _mtime(path: Path) -> dt.datetime:
    """When the file last changed: an SQLite database's changes sit in its write-ahead log
    (`<file>-wal`) until a checkpoint copies them in."""
    wal = wal_stat(path)
    return dt.datetime.fromtimestamp(max(path.stat().st_mtime, wal.st_mtime if wal else 0), dt.UTC)


def candidate_files(root: Path, config: SessionsConfig, since: dt.datetime | None = None) -> list[Path]:
    files: list[Path] = []
    for agent in registry.AGENTS:
        where = agent.load().discovery.files
        if where is not None:
            files.extend(where(root, config, since))
    for extra in config.paths:
        path = Path(extra).expanduser()
        files.extend(_walk(path if path.is_absolute() else root / path))
    return files


def discover(workspace, since: dt.datetime | None = None, paths: list[Path] | None = None,
             scan: bool = True) -> list[SessionInfo]:
    """Sessions of a workspace (a `Workspace` or its root), oldest first.

    `paths` (files or folders) replace discovery; `since` keeps sessions active at or after it.
    With `scan=False` only header fields are read (entries=0), which is enough to find an id.
    """
    root, config, state_dir = _root_and_config(workspace)
    cache = ScanCache(state_dir if scan else None)
    explicit = paths is not None and len(paths) > 0
    files = [f for p in paths for f in _walk(Path(p))] if paths else candidate_files(root, config, since)
    seen: set[tuple[Path, str]] = set()
    out: list[SessionInfo] = []
    for path in files:
        if since is not None and _mtime(path) < since:
            continue
        try:
            infos = sessions_in(path)
        except SessionReadError:
            if explicit:
                raise
            continue  # a file vanishing or unreadable under an agent's home is not our error
        owns = None if explicit else _owner(infos)
        for info in infos:
            if owns is not None and not owns(info, root):
                continue  # another folder's session, in a file that holds every folder's
            key = (path.resolve(), info.session_id)
            if key in seen:
                continue
            seen.add(key)
            if scan:
                cached = cache.get(info)
                if cached is None:
                    cached = scan_info(info)
                    cache.put(cached)
                info = cached
            if since is not None and info.last_time is not None and info.last_time < since:
                continue
            out.append(info)
    cache.save()
    epoch = dt.datetime.min.replace(tzinfo=dt.UTC)
    return sorted(out, key=lambda i: (i.first_time or epoch, i.session_id))


def find_session(workspace, session_id: str, paths: list[Path] | None = None,
                 scan: bool = False) -> SessionInfo:
    """The session with this id (or a unique prefix of it) among the workspace's sessions, or the
    document a document id (`<kind>/<path>`, memcli/agents/documents/) names."""
    if documents.is_document_id(session_id):
        return _document(workspace, session_id)
    infos = discover(workspace, paths=paths, scan=False)
    exact = [i for i in infos if i.session_id == session_id]
    matches = exact or [i for i in infos if i.session_id.startswith(session_id)]
    if not matches:
        raise UnknownSession(f"no session {session_id!r} among the {len(infos)} sessions of this workspace "
                             "(see `memcli sessions`; pass its file with --path)")
    main = [i for i in matches if "parent" not in i.extra]
    if not exact and len(main) == 1:
        matches = main  # a prefix means the session, not its subagent side files (Claude Code)
    if len(matches) > 1:
        if len({i.session_id for i in matches}) == 1:  # the same id in two files: only paths differ
            where = "; ".join(str(i.path) for i in matches[:5])
            raise UsageError(f"session {session_id!r} is in {len(matches)} files ({where}); "
                             "pick one with --path FILE")
        ids = ", ".join(i.session_id for i in matches[:5])
        raise UsageError(f"session {session_id!r} is ambiguous: {ids}; give more of the id")
    return scan_info(matches[0]) if scan else matches[0]


def _owner(infos: list[SessionInfo]) -> Callable[[SessionInfo, Path], bool] | None:
    """The check of which sessions of a discovered file are the workspace's, if its agent has one."""
    agent = registry.get(infos[0].agent) if infos else None
    return agent.load().discovery.owns if agent is not None else None


class UnknownSession(MemcliError):
    """No session with that id."""


def _document(workspace, source_id: str) -> SessionInfo:
    # here: the capture hook's worker discovers sessions; every agent's discovery comes with this one
    from memcli.agents.documents.discovery import DocumentRefused, session

    root, config, state = _root_and_config(workspace)
    try:
        info = session(source_id, root, config, state)
    except DocumentRefused as exc:
        raise UsageError(str(exc)) from None
    if info is None:
        raise UnknownSession(f"no document {source_id!r} on this machine (its file is not where the id "
                             "says: the workspace, or the agent's memory folder; `memcli import --dry-run` "
                             "lists the documents found here)")
    return info


def _root_and_config(workspace) -> tuple[Path, SessionsConfig, Path | None]:
    if not (hasattr(workspace, "root") and hasattr(workspace, "config")):
        workspace = Workspace.open(Path(workspace))
    return Path(workspace.root), workspace.config.sessions, getattr(workspace, "state_dir", None)



