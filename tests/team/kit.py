"""A team on one machine: a bare remote and clones, each with its own state folder, driven through
real `python -m memcli` processes and real git."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from consolidate.helpers import dispose_call, finish_call, item_ids, sources_shown
from support.fake_llm import Reply, tool_call
from support.git import git_result
from support.pipeline import pipeline_config

RECORD = "memory/decisions/review-agent-output.md"
CONFIG = pipeline_config(coalesce_runs=0)
SEED = """\
---
created_at: 2026-05-01T10:00:00+00:00
updated_at: 2026-05-01T10:00:00+00:00
status: resolved
sources:
  - session_id: seed-session
    range: [0, 3]
---
Review what the agent changed before committing.

Why: agents sometimes touch unrelated files.
"""
EXTRACTED = {"decisions": [{"title": "Review agent output", "decision": "Review agent changes before commit",
                            "rationale": "agents touch unrelated files"}],
             "discussions": [], "attempts": [], "requests": []}


def sources_yaml(sources: list[dict]) -> str:
    return "".join(f"  - session_id: {s['session_id']}\n    range: [{s['range'][0]}, {s['range'][1]}]\n"
                   for s in sources)


def worker(body: dict) -> Reply:
    """Extract: one decision. Consolidation: add the staging Sources it is shown to RECORD, dispose of
    every item as integrated there, finish each phase. Stateless (it reads the conversation), so
    two consolidations can talk to it at once."""
    if "tools" not in body:
        return Reply(content=json.dumps(EXTRACTED))
    messages = body["messages"]
    last = messages[-1]
    if last["role"] == "user" and "Phase 1 of 2: integration" in str(last["content"]):
        sources = [{"session_id": s, "range": [a, b]} for s, a, b in sources_shown(last["content"])]
        if sources:
            return Reply(tool_calls=[tool_call("memory_edit", {
                "path": RECORD, "old_string": "sources:\n",
                "new_string": "sources:\n" + sources_yaml(sources),
                "reason": "the decision seen again: add its sources"})])
    asked = [m for m in messages if m["role"] == "assistant" and m.get("tool_calls")]
    if last["role"] == "tool" and asked and asked[-1]["tool_calls"][0]["function"]["name"] == "memory_edit":
        intro = next(m for m in messages if m["role"] == "user" and "Phase 1 of 2: integration" in
                     str(m["content"]))
        return Reply(tool_calls=[dispose_call(item_ids(intro["content"]), "integrated", [RECORD], "it"),
                                 finish_call()])
    return Reply(tool_calls=[finish_call()])


@dataclass
class Clone:
    root: Path
    state: Path
    env: dict[str, str]

    def memcli(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "memcli", *args], cwd=self.root, env=self.env,
                              capture_output=True, text=True, timeout=300)

    def start(self, *args: str) -> subprocess.Popen[str]:
        return subprocess.Popen([sys.executable, "-m", "memcli", *args], cwd=self.root, env=self.env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def git(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return git_result(self.root, *args, check=check)

    def staged(self) -> set[str]:
        return {p.stem for p in (self.root / "memory/_staging").glob("*.json")}

    def record_sources(self) -> list[tuple[str, int, int]]:
        text = (self.root / RECORD).read_text(encoding="utf-8")
        return [(m[0], int(m[1]), int(m[2]))
                for m in re.findall(r"session_id: (\S+)\n    range: \[(\d+), (\d+)\]", text)]


def make_team(tmp: Path, *names: str) -> tuple[Path, dict[str, Clone]]:
    """A bare remote holding an initialised workspace with one decision, and a clone per name."""
    remote = tmp / "remote.git"
    git_result(tmp, "init", "-q", "--bare", "-b", "main", str(remote))
    seed = tmp / "seed"
    seed.mkdir()
    git_result(seed, "init", "-q", "-b", "main")
    subprocess.run([sys.executable, "-m", "memcli", "init"], cwd=seed, capture_output=True, check=True)
    (seed / "memcli.toml").write_text(CONFIG, encoding="utf-8")
    (seed / RECORD).write_text(SEED, encoding="utf-8")
    git_result(seed, "add", "-A")
    git_result(seed, "commit", "-q", "-m", "seed")
    git_result(seed, "push", "-q", str(remote), "main")
    clones = {}
    for name in names:
        root = tmp / name
        git_result(tmp, "clone", "-q", str(remote), str(root))
        env = {**os.environ, "MEMCLI_STATE_DIR": str(tmp / f"state-{name}")}
        clone = Clone(root, tmp / f"state-{name}", env)
        assert clone.memcli("init").returncode == 0  # the driver: git config does not travel
        clones[name] = clone
    return remote, clones


def published(remote: Path) -> dict[str, set[str]]:
    """Publisher → staging ids on the remote."""
    out = git_result(remote, "for-each-ref", "--format=%(refname)", "refs/memcli/staging/").stdout.split()
    result = {}
    for ref in out:
        names = git_result(remote, "ls-tree", "--name-only", ref).stdout.split()
        result[ref.rsplit("/", 1)[1]] = {n.removesuffix(".json") for n in names}
    return result
