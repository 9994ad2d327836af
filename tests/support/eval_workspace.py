"""For `memcli eval` tests: a workspace in a git repository whose memory changes over dated commits,
dated sessions (memcli JSONL) beside it, and record builders."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from support.git import git

DATES = "created_at: 2026-01-01T00:00:00Z\nupdated_at: 2026-01-01T00:00:00Z\n"


def src(*sources: tuple[str, int, int]) -> str:
    return "".join(f"  - session_id: {s}\n    range: [{a}, {b}]\n" for s, a, b in sources)


def request(body: str, *sources: tuple[str, int, int]) -> str:
    return f"---\n{DATES}sources:\n{src(*(sources or (('elsewhere', 0, 0),)))}---\n{body}\n"


def decision(body: str, *sources: tuple[str, int, int], status: str = "resolved",
             replaced_by: str | None = None) -> str:
    extra = f"replaced_by: {replaced_by}\n" if replaced_by else ""
    return (f"---\n{DATES}status: {status}\n{extra}sources:\n{src(*(sources or (('elsewhere', 0, 0),)))}"
            f"---\n{body}\n")


def knowledge(description: str, body: str, *, invoked: bool = True, kind: str = "rule") -> str:
    return (f"---\n{DATES}kind: {kind}\ndescription: {description}\n"
            f"model_invocation: {str(invoked).lower()}\nuser_invocable: true\nlast_sources: []\n"
            f"---\n{body}\n")


def summary(body: str) -> str:
    return f"---\nupdated_at: 2026-01-01T00:00:00Z\n---\n{body}\n"


class History:
    """Sessions under `folder`, a workspace at `root` committed at the dates the test says."""

    def __init__(self, base: Path) -> None:
        self.folder = base / "sessions"
        self.root = base / "ws"
        self.folder.mkdir(parents=True)
        (self.root / "memory").mkdir(parents=True)
        (self.root / "memcli.toml").write_text("", encoding="utf-8")
        (self.root / ".gitignore").write_text("/memory/_staging/\n/.memcli/\n", encoding="utf-8")
        self.git("init", "-q", "-b", "main")
        self.commit("2025-12-01T00:00:00Z", {})

    def git(self, *args: str, when: str | None = None) -> str:
        env = dict(os.environ)
        if when:
            env.update(GIT_AUTHOR_DATE=when, GIT_COMMITTER_DATE=when)
        return git(self.root, *args, env=env)

    def commit(self, when: str, files: dict[str, str | None]) -> str:
        """Write (None: delete) record files and commit them at `when` (an ISO time)."""
        for rel, text in files.items():
            path = self.root / rel
            if text is None:
                path.unlink()
                continue
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        self.git("add", "-A")
        self.git("commit", "-q", "--allow-empty", "-m", f"memory at {when}", when=when)
        return self.git("rev-parse", "HEAD").strip()

    def session(self, sid: str, day: str, prompts: list[str | dict[str, Any]]) -> Path:
        """One session on `day` (2026-01-DD): each prompt a user line answered by the agent; a dict is
        written as the line itself (other roles, injected text). Returns the file."""
        lines: list[dict[str, Any]] = []
        for n, prompt in enumerate(prompts):
            stamp = f"{day}T10:{n:02d}:00Z"
            line = dict(prompt) if isinstance(prompt, dict) else {"role": "user", "content": prompt}
            line.setdefault("timestamp", stamp)
            lines.append(line)
            if not isinstance(prompt, dict):
                lines.append({"role": "assistant", "content": "Done.", "timestamp": f"{day}T10:{n:02d}:30Z"})
        lines[0]["session_id"] = sid
        path = self.folder / f"{sid}.jsonl"
        path.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines), encoding="utf-8")
        return path
