"""The session start's memo (`<state dir>/session-start.json`): what `memcli hooks session-start`
printed, with the stat of every file that decided it, so that a session started on a memory that
did not change since the last one prints the same bytes without importing the config, the record
store or the context builder (issue 39: every agent waits for this hook before its first request).

A row is kept per workspace and `--agent`, under a key of memcli's version, the workspace and the
environment the context reads (MEMCLI_*, the tokenizer's cache folders). Its inputs are the config
files, the summary, every folder and file under knowledge/, the files each knowledge record's
anchors are looked for in, the skills state and the skills it names for that agent, the tokenizer's
table and memcli's own code: any of them made, removed or changed (mode, inode, size, mtime or
ctime) and the row is not used; the context is built as before and the row written again.

Nothing is kept where more than those files decides the text (memcli.context.layout's
`files_decide`: a line the trust gate looked at and git's history vouches for, a stale anchor, a
linked record folder), nor while an input is younger than RACY_S: a file changed within the
clock's granularity of the stat taken here could keep its stat (git's "racy" entries). The memo is a
cache: unreadable, malformed or unwritable, it only means building the context again.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memcli import __version__
from memcli.roots import CONFIG_FILE, state_dir_at

if TYPE_CHECKING:
    from memcli.workspace import Workspace

MEMO_FILE = "session-start.json"
VERSION = 1
RACY_S = 2.0  # an input younger than this is not trusted to show its next change in its stat
_KEEP = 8  # rows kept (workspaces under one MEMCLI_STATE_DIR, agents); oldest dropped first
_ENV = ("TIKTOKEN_CACHE_DIR", "DATA_GYM_CACHE_DIR", "TMPDIR", "TEMP", "TMP")  # where the tokenizer looks
_PACKAGE = Path(__file__).resolve().parents[1]  # memcli's code: an edit or an upgrade is an input too

Stat = list[int] | None


def _stat(path: str) -> Stat:
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return [st.st_mode, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns]


def _key(root: Path, agent: str | None) -> str:
    env = sorted((k, v) for k, v in os.environ.items() if k.startswith("MEMCLI_") or k in _ENV)
    return json.dumps([__version__, str(root), agent or "", env])


def _load(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    rows = data.get("rows") if isinstance(data, dict) and data.get("version") == VERSION else None
    return rows if isinstance(rows, dict) else {}


def recall(root: Path, agent: str | None) -> str | None:
    """What the last session start of `agent` in the workspace at `root` printed, while every
    input it had is as it was; else None."""
    row = _load(state_dir_at(root) / MEMO_FILE).get(_key(root, agent))
    if not isinstance(row, dict) or not isinstance(row.get("out"), str):
        return None
    if not isinstance(row.get("inputs"), dict):
        return None
    for path, stat in row["inputs"].items():
        if _stat(path) != stat:
            return None
    return row["out"]


def inputs(ws: Workspace, agent: str | None) -> list[str]:
    """Every file and folder whose change can change what the session start prints for `agent`,
    given that the files decide it (memcli.context.layout's files_decide)."""
    # here: only a session start that built its context (a memo miss) collects them
    from memcli.anchors import AnchorChecker
    from memcli.skills import state
    from memcli.store import open_store
    from memcli.tokens import counter_files
    from memcli.workspace import KIND_DIRS, SUMMARY_PATH, Kind

    root = ws.root
    out: list[str | Path] = [root / CONFIG_FILE, root / "pyproject.toml", root / SUMMARY_PATH]
    top = str(root)
    knowledge = os.path.join(top, KIND_DIRS[Kind.KNOWLEDGE])
    out.append(knowledge)
    records: list[str] = []
    # Paths as strings: a Path per file cost ~60 ms of a session start at 4 000 knowledge records.
    for folder, dirs, files in os.walk(knowledge):
        out += [os.path.join(folder, name) for name in (*dirs, *files)]
        rel = folder[len(top) + 1:].replace(os.sep, "/")  # os.walk's folders all start with `top`
        records += [f"{rel}/{name}" for name in files]
    store = open_store(ws)
    if store is not None:
        with store:
            anchored = store.anchors(records)
        checker = AnchorChecker(root)
        for named in anchored.values():
            for path, _symbol in named:
                out += checker.places(path)
    skills = state.path_of(ws.state_dir)
    out.append(skills)
    rows = state.load(ws.state_dir).get("full", {}).get(agent or "")
    if isinstance(rows, dict):
        out += [root / row[2] for row in rows.values()
                if isinstance(row, list) and len(row) == 3 and isinstance(row[2], str)]
    out += counter_files()
    for folder, dirs, files in os.walk(_PACKAGE):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        out += [os.path.join(folder, name) for name in files if name.endswith((".py", ".json"))]
    return [str(p) for p in out]


def remember(ws: Workspace, agent: str | None, printed: str, paths: list[str]) -> None:
    """Keep what a session start printed under the stats of `paths` (`inputs`)."""
    stats = {path: _stat(path) for path in paths}
    young = time.time_ns() - int(RACY_S * 1e9)
    if any(stat is not None and stat[3] > young for stat in stats.values()):
        return  # an input changed just now: its next change may not show in its stat
    from memcli.atomicio import atomic_write_text  # here: a memo hit writes nothing

    memo = ws.state_dir / MEMO_FILE
    rows = _load(memo)
    key = _key(ws.root, agent)
    rows.pop(key, None)
    rows[key] = {"inputs": stats, "out": printed}
    while len(rows) > _KEEP:
        rows.pop(next(iter(rows)))
    try:
        atomic_write_text(memo, json.dumps({"version": VERSION, "rows": rows}, ensure_ascii=False))
    except OSError:
        pass  # a read-only state folder: the next session start builds the context again
