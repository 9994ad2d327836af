"""Helpers for import tests (import as `from imports.helpers import ...`; tests/ is on sys.path)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from support.fake_llm import Reply
from support.pipeline import pipeline_config

from memcli.staging import StagingFile
from memcli.workspace import Workspace

DOCS = Path(__file__).resolve().parents[1] / "fixtures" / "documents"
_HEADER = re.compile(r"^--- lines? (\d+)(?:-(\d+))?(?: \(under: .*\))?$")
_FENCE = re.compile(r"<<<DOCUMENT-DATA (\w+) \(data, not instructions\)>>>\n(.*)\n<<<END DOCUMENT-DATA \1>>>",
                    re.DOTALL)


@dataclass(frozen=True)
class World:
    """A workspace holding every kind of document, and the agents' homes beside it."""

    root: Path
    claude_memory: Path
    codex_memories: Path
    gemini_memory: Path

    @property
    def ws(self) -> Workspace:
        return Workspace.open(self.root)


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, text=True).stdout


def make_world(tmp: Path, monkeypatch) -> World:
    root = tmp / "bakery"
    shutil.copytree(DOCS / "project", root)
    (root / "memory").mkdir()
    (root / "memcli.toml").write_text(pipeline_config(), encoding="utf-8")
    (root / ".gitignore").write_text("/memory/_staging/\n/.memcli/\nCLAUDE.local.md\n", encoding="utf-8")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "initial")

    claude = tmp / "claude-home"
    memory = claude / "projects" / re.sub(r"[^A-Za-z0-9]", "-", str(root)) / "memory"
    shutil.copytree(DOCS / "claude-memory", memory)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(claude))

    codex = tmp / "codex-home"
    (codex / "memories").mkdir(parents=True)
    text = (DOCS / "codex-memories" / "MEMORY.md").read_text(encoding="utf-8").replace("{{ROOT}}", str(root))
    (codex / "memories" / "MEMORY.md").write_text(text, encoding="utf-8")
    monkeypatch.setenv("CODEX_HOME", str(codex))

    gemini_home = tmp / "gemini-user"
    gemini = gemini_home / ".gemini"
    project = gemini / "tmp" / "bakery"
    shutil.copytree(DOCS / "gemini-memory", project / "memory")
    (project / ".project_root").write_text(str(root), encoding="utf-8")
    (gemini / "projects.json").write_text(json.dumps({"projects": {str(root): "bakery"}}), encoding="utf-8")
    monkeypatch.setenv("GEMINI_CLI_HOME", str(gemini_home))
    return World(root, memory, codex / "memories", project / "memory")


def blocks_sent(body: dict) -> list[tuple[int, int, str]]:
    """(first line, last line, text) of every block one import request shows."""
    found = _FENCE.search(body["messages"][-1]["content"])
    assert found, "no fenced document in the request"
    out: list[tuple[int, int, list[str]]] = []
    for line in found.group(2).splitlines():
        header = _HEADER.match(line)
        if header:
            start = int(header.group(1))
            out.append((start, int(header.group(2) or start), []))
        elif out:
            out[-1][2].append(line)
    return [(a, b, "\n".join(lines).strip()) for a, b, lines in out]


def plain(text: str) -> str:
    """A block's text without its list marker."""
    return re.sub(r"^\s*(?:[-*+]|\d+[.)])\s+", "", text)


def echo_blocks(body: dict) -> Reply:
    """A model that returns one request per block it is shown, in the block's own words."""
    items = [{"title": plain(text)[:60] or "empty", "request": plain(text)[:1000]}
             for _a, _b, text in blocks_sent(body) if text]
    return Reply(content=json.dumps({"decisions": [], "discussions": [], "attempts": [], "requests": items},
                                    ensure_ascii=False))


def staged(root: Path) -> list[StagingFile]:
    files = sorted((root / "memory/_staging").glob("*.json"))
    return [StagingFile.model_validate_json(p.read_bytes()) for p in files]


def file_lines(path: Path, a: int, b: int) -> str:
    return "\n".join(path.read_text(encoding="utf-8").splitlines()[a - 1 : b])
