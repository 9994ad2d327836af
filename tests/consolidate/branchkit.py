"""Helpers for the branch, proposal and worktree tests: staging items recorded on a branch as
extract records them, and a scripted consolidation model that files each staging file as a record."""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path

from consolidate.helpers import decision, dispose_call, finish_call, item_ids
from support.fake_llm import Reply, tool_call
from support.git import git

from memcli.staging import Branch, StagingFile
from memcli.workspace import Workspace

CONFIG = """\
[memory]
consolidation_model = "openai/fake-model"
context_tokens = 128000
retries = 1
backoff_s = 0
backoff_max_s = 0

[consolidate]
trigger_files = 0
trigger_bytes = 0
max_iterations = 12
coalesce_runs = 0
"""


def repo(root: Path) -> Path:
    """A workspace at `root` in a new git repository on `main`, everything committed."""
    (root / "memory" / "decisions").mkdir(parents=True, exist_ok=True)
    (root / "memory" / "decisions" / ".gitkeep").write_text("")
    (root / "memcli.toml").write_text(CONFIG, encoding="utf-8")
    (root / ".gitignore").write_text("/memory/_staging/\n/.memcli/\n", encoding="utf-8")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "initial")
    return root


def commit_file(root: Path, name: str, text: str = "work\n") -> str:
    (root / name).write_text(text, encoding="utf-8")
    git(root, "add", name)
    git(root, "commit", "-q", "-m", f"work on {name}")
    return git(root, "rev-parse", "HEAD").strip()


def recorded_branch(root: Path, name: str | None = None) -> Branch | None:
    """What extract records for a session in the worktree at `root` (memcli.extract.branch)."""
    from memcli.extract.branch import BranchResolver
    from memcli.transcript.model import SessionInfo

    info = SessionInfo("claude-code", "s", root / "s.jsonl", cwd=str(root))
    return BranchResolver(root).resolve(info, name)


def stage(ws_root: Path, session: str, branch: Branch | None, *, staging_dir: Path | None = None,
          title: str | None = None) -> str:
    """One staging file (one decision) of `session`; its id is the session's name."""
    data = StagingFile(
        id=session, agent="claude-code", source={"session_id": session, "range": [1, 2]},
        model="openai/fake", prompt_version="test", created_at=dt.datetime.now(dt.UTC),
        items={"decisions": [{"title": title or f"Decision of {session}",
                              "decision": f"We chose {session}"}]},
        branch=branch,
    )
    folder = staging_dir or Workspace.open(ws_root).staging_dir
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{session}.json").write_text(data.model_dump_json(), encoding="utf-8")
    return session


def staged(ws_root: Path) -> set[str]:
    folder = Workspace.open(ws_root).staging_dir
    return {p.stem for p in folder.glob("*.json")}


# a staging file's Source in the integration message (records' own sources are shown too)
_STAGED = re.compile(r"## Staging file \S+ .*?```yaml\nsources:\n  - session_id: \"?([^\"\n]+)\"?\n"
                     r"    range: \[(\d+), (\d+)\]", re.S)


class Filer:
    """A consolidation model that files each staging file it is shown as the decision
    `memory/decisions/<session>.md` (the staging Source as its source), then finishes. `seen` lists
    the sessions each run was shown."""

    def __init__(self) -> None:
        self.seen: list[list[str]] = []
        self._ids: list[str] = []
        self._paths: list[str] = []

    def __call__(self, body: dict) -> Reply:
        last = body["messages"][-1]
        if last["role"] == "user" and "Phase 1 of 2: integration" in last["content"]:
            sources = [(s, int(a), int(b)) for s, a, b in _STAGED.findall(last["content"])]
            self.seen.append([s for s, _, _ in sources])
            self._ids = item_ids(last["content"])
            self._paths = [f"memory/decisions/{s}.md" for s, _, _ in sources]
            return Reply(tool_calls=[tool_call("memory_write", {
                "path": path, "mode": "create", "content": decision(f"We chose {s}.", [(s, a, b)]),
                "reason": f"the decision of {s}"}, call_id=f"call_write_{s}")
                for path, (s, a, b) in zip(self._paths, sources, strict=True)])
        if self._ids:
            calls = [dispose_call([i], "integrated", [p], "filed") for i, p in zip(self._ids, self._paths,
                                                                                   strict=True)]
            self._ids = []
            return Reply(tool_calls=[*calls, finish_call()])
        return Reply(tool_calls=[finish_call()])


def records(root: Path) -> set[str]:
    return {p.stem for p in (root / "memory" / "decisions").glob("*.md")}


def seen_file(ws_root: Path) -> Path:
    return Workspace.open(ws_root).clone_state_dir / "branches.json"


def age_gone(ws_root: Path, branch: str, days: int) -> None:
    """Make memcli believe it found `branch` gone `days` ago (its observation file)."""
    path = seen_file(ws_root)
    data = json.loads(path.read_text(encoding="utf-8"))
    since = dt.datetime.now(dt.UTC) - dt.timedelta(days=days)
    data[branch]["gone_since"] = since.isoformat(timespec="seconds")
    path.write_text(json.dumps(data), encoding="utf-8")
