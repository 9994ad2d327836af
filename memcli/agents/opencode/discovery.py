"""Where OpenCode keeps a workspace's sessions: in its one database for every folder (database.py),
`<data>/opencode.db`, or `opencode-<channel>.db` for a release channel other than latest, beta and
prod; OPENCODE_DB names another (absolute, or relative to the data folder). The data folder:
`[sessions] opencode_home`, else `$XDG_DATA_HOME/opencode`, else `~/.local/share/opencode`
(checked against OpenCode 1.18.33). Of the sessions in it, the workspace's are those whose
`directory` is the workspace or a folder inside it (`owns`).
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from memcli.agents.parts import Discovery, configured, inside

if TYPE_CHECKING:
    from memcli.config import SessionsConfig
    from memcli.transcript.model import SessionInfo


def data_home() -> Path:
    base = os.environ.get("XDG_DATA_HOME")
    return (Path(base).expanduser() if base else Path.home() / ".local" / "share") / "opencode"


def databases(data: Path) -> list[Path]:
    found = sorted({*data.glob("opencode.db"), *data.glob("opencode-*.db")})
    named = os.environ.get("OPENCODE_DB")
    if named and named != ":memory:":
        path = Path(named).expanduser()
        found.append(path if path.is_absolute() else data / path)
    return [p for p in dict.fromkeys(found) if p.is_file()]


def files(root: Path, config: SessionsConfig, since: dt.datetime | None = None) -> Iterable[Path]:
    return databases(configured(config.opencode_home, root) or data_home())


def is_transcript(path: Path) -> bool:
    return path.name.startswith("opencode") and path.suffix == ".db"


def owns(info: SessionInfo, root: Path) -> bool:
    return info.cwd is not None and inside(info.cwd, {root, root.resolve()})


DISCOVERY = Discovery(is_transcript=is_transcript, files=files, owns=owns)
