"""Where Pi keeps a workspace's sessions (checked against Pi 0.73.1: `getDefaultSessionDir`,
`getAgentDir` and `getSessionDir` in its npm package's `dist/`).

- `<agent dir>/sessions/--<cwd without its leading '/', each '/', '\\' and ':' → '-'>--/*.jsonl`:
  the workspace's own folder, and the folders of sessions started in a folder inside it (their
  names extend the workspace's; the encoding is lossy, so those are checked by the header's cwd).
  The agent dir: `[sessions] pi_home`, else `PI_CODING_AGENT_DIR`, else `~/.pi/agent`.
- A session folder of the user's choosing, where Pi was given one (`PI_CODING_AGENT_SESSION_DIR`,
  else `sessionDir` in the workspace's `.pi/settings.json`, else in `<agent dir>/settings.json`):
  Pi writes every project's sessions there side by side; those whose header's cwd is the workspace
  or a folder inside it are the workspace's.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from memcli.agents.parts import Discovery, configured, inside

if TYPE_CHECKING:
    from memcli.config import SessionsConfig

_HEADER_BYTES = 64 * 1024


def agent_dir() -> Path:
    moved = os.environ.get("PI_CODING_AGENT_DIR")
    return Path(moved).expanduser() if moved else Path.home() / ".pi" / "agent"


def encoded(cwd: str) -> str:
    """The name of the folder Pi keeps the sessions started in `cwd` in."""
    return "--" + re.sub(r"[/\\:]", "-", re.sub(r"^[/\\]", "", cwd)) + "--"


def header_cwd(path: Path) -> str | None:
    """The cwd in a session file's header (its first line)."""
    try:
        with path.open("rb") as fh:
            first = fh.readline(_HEADER_BYTES)
        header = json.loads(first)
    except (OSError, ValueError):
        return None
    cwd = header.get("cwd") if isinstance(header, dict) else None
    return cwd if isinstance(cwd, str) else None


def session_dir(root: Path, home: Path) -> Path | None:
    """The session folder the user gave Pi, if any (Pi's order: environment, project, user)."""
    moved = os.environ.get("PI_CODING_AGENT_SESSION_DIR")
    if moved:
        return Path(moved).expanduser()
    for settings in (root / ".pi" / "settings.json", home / "settings.json"):
        try:
            value = json.loads(settings.read_text(encoding="utf-8")).get("sessionDir")
        except (OSError, ValueError, AttributeError):
            continue
        if isinstance(value, str) and value:
            path = Path(value).expanduser()
            return path if path.is_absolute() else root / path  # relative to where Pi runs
    return None


def _listed(folder: Path) -> list[Path]:
    try:
        return sorted(folder.glob("*.jsonl"))
    except OSError:
        return []


def files(root: Path, config: SessionsConfig, since: dt.datetime | None = None) -> Iterable[Path]:
    home = configured(config.pi_home, root) or agent_dir()
    roots = {root, root.resolve()}
    names = {encoded(str(r)) for r in roots}
    try:
        folders = sorted(p for p in (home / "sessions").iterdir() if p.is_dir())
    except OSError:
        folders = []
    for folder in folders:
        exact = folder.name in names
        if exact or any(folder.name.startswith(n[:-2] + "-") for n in names):
            for path in _listed(folder):
                if exact or ((cwd := header_cwd(path)) is not None and inside(cwd, roots)):
                    yield path
    chosen = session_dir(root, home)
    if chosen is not None:
        for path in _listed(chosen):
            if (cwd := header_cwd(path)) is not None and inside(cwd, roots):
                yield path


DISCOVERY = Discovery(is_transcript=lambda path: path.name.endswith(".jsonl"), files=files)
