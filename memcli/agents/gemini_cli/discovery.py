"""Where Gemini CLI keeps a workspace's sessions: `<gemini home>/tmp/<project name>/chats/
session-*.jsonl` (0.61 on; a subagent's in `chats/<parent session>/`), the project name being what
`<gemini home>/projects.json` maps the folder the session ran in to (each such folder also names
its owner in `.project_root`), for the workspace and the folders inside it; and
`tmp/<sha256 of the project path>/chats/session-*.json` (before; 0.61 moves those folders to the
project name, `.json` files and all). The home (the `.gemini` folder): `[sessions] gemini_home`,
else `$GEMINI_CLI_HOME/.gemini`, else `~/.gemini`.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from memcli.agents.parts import Discovery, configured, inside

if TYPE_CHECKING:
    from memcli.config import SessionsConfig


def home() -> Path:
    """The `.gemini` folder: GEMINI_CLI_HOME stands in for the home folder in Gemini CLI."""
    moved = os.environ.get("GEMINI_CLI_HOME")
    return (Path(moved).expanduser() if moved else Path.home()) / ".gemini"


def project_hash(root: Path) -> str:
    return hashlib.sha256(str(root).encode()).hexdigest()


def project_dirs(gemini_home: Path, root: Path) -> list[Path]:
    """Gemini CLI's folders under `<home>/tmp` for sessions run in the workspace or inside it."""
    roots = {root, root.resolve()}
    tmp = gemini_home / "tmp"
    names = {project_hash(r) for r in roots}
    try:
        registry = json.loads((gemini_home / "projects.json").read_text(encoding="utf-8")).get("projects")
    except (OSError, ValueError, AttributeError):
        registry = None
    if isinstance(registry, dict):
        names.update(n for p, n in registry.items() if isinstance(n, str) and inside(p, roots))
    try:
        markers = list(tmp.glob("*/.project_root"))
    except OSError:
        markers = []
    for marker in markers:  # what Gemini itself falls back on when projects.json is lost
        with contextlib.suppress(OSError, UnicodeDecodeError):
            if inside(marker.read_text(encoding="utf-8").strip(), roots):
                names.add(marker.parent.name)
    return [tmp / n for n in sorted(names) if n and "/" not in n and n not in (".", "..")]


def files(root: Path, config: SessionsConfig, since: dt.datetime | None = None) -> Iterable[Path]:
    for folder in project_dirs(configured(config.gemini_home, root) or home(), root):
        chats = folder / "chats"
        yield from sorted([*chats.glob("session-*.json"), *chats.glob("session-*.jsonl"),
                           *chats.glob("*/*.jsonl")])


def is_transcript(path: Path) -> bool:
    name = path.name
    return name.endswith(".jsonl") or (name.startswith("session-") and name.endswith(".json"))


DISCOVERY = Discovery(is_transcript=is_transcript, files=files)
