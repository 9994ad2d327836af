"""Where Claude Code keeps a workspace's sessions: `<claude home>/projects/<cwd, every
non-alphanumeric character → '-'>/*.jsonl`, with its subagents' `agent-*.jsonl` beside them (2.0)
or in `<session>/subagents/` (2.1), and the folders of sessions started in a subfolder of the
workspace (their records' `cwd` is inside it). The home: `[sessions] claude_home`, else
CLAUDE_CONFIG_DIR, else `~/.claude`.
"""

from __future__ import annotations

import datetime as dt
import itertools
import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from memcli.agents.parts import Discovery, configured, inside
from memcli.agents.parts import home as agent_home

if TYPE_CHECKING:
    from memcli.config import SessionsConfig

_CWD = re.compile(rb'"cwd":\s*"((?:[^"\\]|\\.)*)"')


def home() -> Path:
    return agent_home("CLAUDE_CONFIG_DIR", ".claude")


def project_name(path: str) -> str:
    """The name current Claude Code gives a project's folder under `<claude home>/projects/`."""
    return re.sub(r"[^A-Za-z0-9]", "-", path)


def project_dirs(claude_home: Path, root: Path) -> list[tuple[Path, bool]]:
    """(folder, exact): the workspace's own folder, and folders of sessions started in a subfolder
    (their encoded name extends the workspace's; the encoding is lossy, so those are checked by cwd)."""
    names = set()
    for path in {str(root), str(root.resolve())}:
        names.add(project_name(path))  # current Claude Code
        names.add(path.replace("/", "-").replace("\\", "-"))  # older versions kept dots and underscores
    projects = claude_home / "projects"
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


def _cwd(path: Path) -> str | None:
    try:
        with path.open("rb") as fh:
            for raw in itertools.islice(fh, 64):
                match = _CWD.search(raw)
                if match:
                    return json.loads(b'"' + match.group(1) + b'"')
    except (OSError, ValueError):
        return None
    return None


def files(root: Path, config: SessionsConfig, since: dt.datetime | None = None) -> Iterable[Path]:
    roots = {root, root.resolve()}
    for folder, exact in project_dirs(configured(config.claude_home, root) or home(), root):
        found = [*sorted(folder.glob("*.jsonl")), *sorted(folder.glob("*/subagents/agent-*.jsonl"))]
        for path in found:
            if exact or ((cwd := _cwd(path)) is not None and inside(cwd, roots)):
                yield path


DISCOVERY = Discovery(is_transcript=lambda path: path.name.endswith(".jsonl"), files=files)
