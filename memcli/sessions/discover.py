"""Which session files belong to a workspace, and finding one session by id.

Agents keep transcripts in their own home folders, keyed by the working directory:
- Claude Code: `<claude home>/projects/<cwd, every non-alphanumeric character → '-'>/*.jsonl`
  (+ `agent-*.jsonl` and `<session>/subagents/agent-*.jsonl`), and the folders of sessions started
  in a subfolder of the workspace (their records' `cwd` is inside it)
- Codex: `<codex home>/sessions/YYYY/MM/DD/rollout-*.jsonl` whose `session_meta.cwd` is the workspace
  (or a folder inside it)
- Gemini CLI: `<gemini home>/tmp/<project name>/chats/session-*.jsonl` (0.61 on; a subagent's in
  `chats/<parent session>/`), the project name being what `<gemini home>/projects.json` maps the
  folder the session ran in to (each such folder also names its owner in `.project_root`), for the
  workspace and the folders inside it; and `tmp/<sha256 of the project path>/chats/session-*.json`
  (before; 0.61 moves those folders to the project name, `.json` files and all)
- Aider: `<workspace>/.aider.chat.history.md`
A home is `[sessions]` config (`claude_home`, `codex_home`, `gemini_home`) if set, else the agent's own
environment variable (CLAUDE_CONFIG_DIR, CODEX_HOME, GEMINI_CLI_HOME/.gemini), else `~/.claude`,
`~/.codex`, `~/.gemini`. `[sessions] paths` adds files or folders; explicit `paths` replace it all.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import itertools
import json
import os
import re
from collections.abc import Iterable
from pathlib import Path

from memcli.config import SessionsConfig
from memcli.errors import MemcliError, UsageError
from memcli.sessions import aider
from memcli.sessions.base import SessionReadError
from memcli.sessions.cache import ScanCache
from memcli.sessions.model import SessionInfo
from memcli.sessions.reader import scan as scan_info
from memcli.sessions.reader import sessions_in

AIDER_HISTORY = ".aider.chat.history.md"
_FIRST_LINE_MAX = 16 * 1024 * 1024  # Codex session_meta carries the whole system prompt
_CWD = re.compile(rb'"cwd":\s*"((?:[^"\\]|\\.)*)"')


def _home(configured: str | None, env: str | None, default: str, root: Path) -> Path:
    if configured:
        path = Path(configured).expanduser()
        return path if path.is_absolute() else root / path
    if env:
        return Path(env).expanduser()
    return Path.home() / default


def homes(config: SessionsConfig, root: Path) -> dict[str, Path]:
    gemini_env = os.environ.get("GEMINI_CLI_HOME")  # Gemini CLI's stand-in for the home folder
    gemini_dir = str(Path(gemini_env) / ".gemini") if gemini_env else None
    return {
        "claude-code": _home(config.claude_home, os.environ.get("CLAUDE_CONFIG_DIR"), ".claude", root),
        "codex": _home(config.codex_home, os.environ.get("CODEX_HOME"), ".codex", root),
        "gemini-cli": _home(config.gemini_home, gemini_dir, ".gemini", root),
    }


def claude_project_dirs(home: Path, root: Path) -> list[tuple[Path, bool]]:
    """(folder, exact): the workspace's own folder, and folders of sessions started in a subfolder
    (their encoded name extends the workspace's; the encoding is lossy, so those are checked by cwd)."""
    names = set()
    for path in {str(root), str(root.resolve())}:
        names.add(re.sub(r"[^A-Za-z0-9]", "-", path))  # current Claude Code
        names.add(path.replace("/", "-").replace("\\", "-"))  # older versions kept dots and underscores
    projects = home / "projects"
    try:
        folders = sorted(p for p in projects.iterdir() if p.is_dir())
    except OSError:
        return []
    out = []
    for folder in folders:
        if folder.name in names:
            out.append((folder, True))
        elif any(folder.name.startswith(name + "-") for name in names):
            out.append((folder, False))
    return out


def _claude_cwd(path: Path) -> str | None:
    try:
        with path.open("rb") as fh:
            for raw in itertools.islice(fh, 64):
                match = _CWD.search(raw)
                if match:
                    return json.loads(b'"' + match.group(1) + b'"')
    except (OSError, ValueError):
        return None
    return None


def _claude_files(home: Path, root: Path) -> Iterable[Path]:
    roots = {root, root.resolve()}
    for folder, exact in claude_project_dirs(home, root):
        files = [*sorted(folder.glob("*.jsonl")), *sorted(folder.glob("*/subagents/agent-*.jsonl"))]
        for path in files:
            if exact or ((cwd := _claude_cwd(path)) is not None and _inside(cwd, roots)):
                yield path


def _codex_cwd(path: Path) -> str | None:
    try:
        with path.open("rb") as fh:
            first = json.loads(fh.readline(_FIRST_LINE_MAX))
    except (OSError, ValueError, RecursionError):
        return None
    payload = first.get("payload") if isinstance(first, dict) else None
    cwd = payload.get("cwd") if isinstance(payload, dict) else None
    return cwd if isinstance(cwd, str) else None


def _inside(cwd: str, roots: set[Path]) -> bool:
    path = Path(cwd)
    return any(path == r or r in path.parents for r in roots)


def _codex_files(home: Path, root: Path, since: dt.datetime | None) -> Iterable[Path]:
    roots = {root, root.resolve()}
    for path in sorted((home / "sessions").glob("**/rollout-*.jsonl")):
        if since is not None and _mtime(path) < since:
            continue
        cwd = _codex_cwd(path)
        if cwd is not None and _inside(cwd, roots):
            yield path


def gemini_project_hash(root: Path) -> str:
    return hashlib.sha256(str(root).encode()).hexdigest()


def gemini_project_dirs(home: Path, root: Path) -> list[Path]:
    """Gemini CLI's folders under `<home>/tmp` for sessions run in the workspace or inside it."""
    roots = {root, root.resolve()}
    tmp = home / "tmp"
    names = {gemini_project_hash(r) for r in roots}
    try:
        registry = json.loads((home / "projects.json").read_text(encoding="utf-8")).get("projects")
    except (OSError, ValueError, AttributeError):
        registry = None
    if isinstance(registry, dict):
        names.update(n for p, n in registry.items() if isinstance(n, str) and _inside(p, roots))
    try:
        markers = list(tmp.glob("*/.project_root"))
    except OSError:
        markers = []
    for marker in markers:  # what Gemini itself falls back on when projects.json is lost
        with contextlib.suppress(OSError, UnicodeDecodeError):
            if _inside(marker.read_text(encoding="utf-8").strip(), roots):
                names.add(marker.parent.name)
    return [tmp / n for n in sorted(names) if n and "/" not in n and n not in (".", "..")]


def _gemini_files(home: Path, root: Path) -> Iterable[Path]:
    for folder in gemini_project_dirs(home, root):
        chats = folder / "chats"
        yield from sorted([*chats.glob("session-*.json"), *chats.glob("session-*.jsonl"),
                           *chats.glob("*/*.jsonl")])


def _walk(path: Path) -> Iterable[Path]:
    """The transcript-looking files under a folder given explicitly."""
    if not path.exists():
        raise SessionReadError(f"{path}: no such file or folder")
    if path.is_file():
        yield path
        return
    for found in sorted(path.rglob("*")):
        name = found.name
        gemini = name.startswith("session-") and name.endswith(".json")
        if found.is_file() and (name.endswith((".jsonl", ".chat.history.md")) or gemini or _aider_md(found)):
            yield found


def _aider_md(path: Path) -> bool:
    if path.suffix != ".md" or path.name.endswith(".chat.history.md"):
        return False
    try:
        with path.open("rb") as fh:
            return aider.looks_like(fh.read(256 * 1024))
    except OSError:
        return False


def _mtime(path: Path) -> dt.datetime:
    return dt.datetime.fromtimestamp(path.stat().st_mtime, dt.UTC)


def candidate_files(root: Path, config: SessionsConfig, since: dt.datetime | None = None) -> list[Path]:
    where = homes(config, root)
    files = [*_claude_files(where["claude-code"], root), *_codex_files(where["codex"], root, since),
             *_gemini_files(where["gemini-cli"], root)]
    if (root / AIDER_HISTORY).is_file():
        files.append(root / AIDER_HISTORY)
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
    files = [f for p in paths for f in _walk(Path(p))] if explicit else candidate_files(root, config, since)
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
        for info in infos:
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
    """The session with this id (or a unique prefix of it) among the workspace's sessions."""
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


class UnknownSession(MemcliError):
    """No session with that id."""


def _root_and_config(workspace) -> tuple[Path, SessionsConfig, Path | None]:
    if not (hasattr(workspace, "root") and hasattr(workspace, "config")):
        from memcli.workspace import Workspace

        workspace = Workspace.open(Path(workspace))
    return Path(workspace.root), workspace.config.sessions, getattr(workspace, "state_dir", None)



