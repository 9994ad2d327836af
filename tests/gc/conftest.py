"""Builders for crafted GC workspaces: records written as text, git repos with a fixed identity."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from support.git import git

FRESH = "2026-05-20T10:00:00+00:00"


def src(session: str = "s-1", start: int = 0, end: int = 3) -> str:
    return f"  - session_id: {session}\n    range: [{start}, {end}]\n"


def write(root: Path, rel: str, front: str, body: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\n{front}---\n{body}\n", encoding="utf-8")
    return path


def decision(root: Path, slug: str, body: str = "Short decision.", *, status: str = "resolved",
             replaced_by: str | None = None, updated: str = FRESH, sources: int = 1) -> Path:
    front = f"created_at: {FRESH}\nupdated_at: {updated}\nstatus: {status}\n"
    if replaced_by:
        front += f"replaced_by: {replaced_by}\n"
    front += "sources:\n" + "".join(src(f"s-{i}", i, i + 1) for i in range(sources))
    return write(root, f"memory/decisions/{slug}.md", front, body)


def request(root: Path, slug: str, body: str = "Short request.", *, updated: str = FRESH) -> Path:
    front = f"created_at: {FRESH}\nupdated_at: {updated}\nsources:\n{src()}"
    return write(root, f"memory/requests/{slug}.md", front, body)


def knowledge(root: Path, slug: str, body: str = "Short note.", *, kind: str = "fact",
              description: str = "A fact.", invoked: bool = False, updated: str = FRESH,
              field: str = "model_invocation") -> Path:
    front = (f"created_at: {FRESH}\nupdated_at: {updated}\nkind: {kind}\ndescription: {description}\n"
             f"{field}: {'true' if invoked else 'false'}\nuser_invocable: true\nlast_sources:\n{src()}")
    return write(root, f"knowledge/{slug}.md", front, body)


def workflow(root: Path, slug: str, requires: list[str], body: str = "Steps.") -> Path:
    front = (f"created_at: {FRESH}\nupdated_at: {FRESH}\ndescription: How to do it.\nauto_invoke: false\n"
             f"user_invocable: true\nrequires: [{', '.join(requires)}]\n")
    return write(root, f"memory/workflow/{slug}.md", front, body)


def summary(root: Path, body: str = "# Project\n\nA small service.", updated: str = FRESH) -> Path:
    return write(root, "memory/summary.md", f"updated_at: {updated}\n", body)


def prose(seed: int, words: int) -> str:
    """Distinct filler text (a different seed gives a body no other seed is near)."""
    rng = random.Random(seed)
    vocab = [f"{a}{b}" for a in ("lor", "ips", "dol", "sit", "ame", "con", "sec", "adi", "eli", "sed")
             for b in ("um", "em", "or", "it", "et", "ur", "a", "is", "us", "ae")]
    return " ".join(rng.choice(vocab) for _ in range(words))


def git_init(root: Path) -> None:
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "commit.gpgsign", "false")


def commit_all(root: Path, message: str) -> None:
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)


@pytest.fixture
def ws_root(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return root


class Builders:
    """The helpers above, handed to tests as a fixture (tests/gc cannot be imported as a package:
    `gc` is a standard-library module)."""

    FRESH = FRESH
    src = staticmethod(src)
    write = staticmethod(write)
    decision = staticmethod(decision)
    request = staticmethod(request)
    knowledge = staticmethod(knowledge)
    workflow = staticmethod(workflow)
    summary = staticmethod(summary)
    prose = staticmethod(prose)
    git = staticmethod(git)
    git_init = staticmethod(git_init)
    commit_all = staticmethod(commit_all)


@pytest.fixture
def b() -> type[Builders]:
    return Builders
