"""Where Aider keeps a workspace's sessions: `.aider.chat.history.md` at the workspace's root (one
file, a session at every launch). In a folder given explicitly, any `*.chat.history.md` and any
Markdown file with an `# aider chat started at` header line (a history under another name).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from memcli.agents.aider.transcript import looks_like
from memcli.agents.parts import Discovery

if TYPE_CHECKING:
    from memcli.config import SessionsConfig

HISTORY = ".aider.chat.history.md"


def files(root: Path, config: SessionsConfig, since: dt.datetime | None = None) -> Iterable[Path]:
    return [root / HISTORY] if (root / HISTORY).is_file() else []


def is_transcript(path: Path) -> bool:
    if path.name.endswith(".chat.history.md"):
        return True
    if path.suffix != ".md":
        return False
    try:
        with path.open("rb") as fh:
            return looks_like(fh.read(256 * 1024))
    except OSError:
        return False


DISCOVERY = Discovery(is_transcript=is_transcript, files=files)
