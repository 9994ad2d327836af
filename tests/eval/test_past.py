"""The memory as of a past moment, read from git without a checkout."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from support.eval_workspace import request

from memcli.eval.past import MemoryHistory


def _at(text: str) -> dt.datetime:
    return dt.datetime.fromisoformat(text.replace("Z", "+00:00"))


def test_the_commit_before_a_moment_and_its_files(history) -> None:
    first = history.commit("2026-01-05T00:00:00Z", {"memory/requests/a.md": request("A one.")})
    second = history.commit("2026-01-10T00:00:00Z", {"memory/requests/a.md": request("A two."),
                                                     "knowledge/b.md": request("B.")})
    history.commit("2026-01-12T00:00:00Z", {"src/app.py": "print()\n"})  # not the memory: not listed
    third = history.commit("2026-01-20T00:00:00Z", {"memory/requests/a.md": None})
    (history.root / "memory/requests/a.md").write_text("working tree: not committed", encoding="utf-8")
    past = MemoryHistory(history.root)
    assert past.available and past.note is None
    assert past.commit_before(_at("2025-11-01T00:00:00Z")) is None  # before the memory had any commit
    assert past.commit_before(_at("2026-01-05T00:00:00Z")) == first  # committed at that very second
    assert past.commit_before(_at("2026-01-15T00:00:00Z")) == second
    assert past.commit_before(_at("2026-02-01T00:00:00Z")) == third
    files = past.files(second)
    assert sorted(files) == ["knowledge/b.md", "memory/requests/a.md"]
    blob = files["memory/requests/a.md"]
    assert past.read([blob])[blob] == request("A two.").encode()
    assert sorted(past.files(third)) == ["knowledge/b.md"]


def test_a_workspace_in_a_subfolder_of_the_repository(tmp_path: Path, history) -> None:
    sub = history.root / "docs" / "ws"
    (sub / "memory" / "requests").mkdir(parents=True)
    (sub / "memory" / "requests" / "x.md").write_text(request("X."), encoding="utf-8")
    (sub / "memory" / "_staging").mkdir()
    (sub / "memory" / "_staging" / "s.json").write_text("{}", encoding="utf-8")
    sha = history.commit("2026-01-05T00:00:00Z", {})
    past = MemoryHistory(sub)
    assert past.commit_before(_at("2026-01-06T00:00:00Z")) == sha
    assert list(past.files(sha)) == ["memory/requests/x.md"]  # relative to the workspace, staging left out


@pytest.mark.parametrize("git_dir", [False, True])
def test_no_history_says_why(tmp_path: Path, git_dir: bool) -> None:
    root = tmp_path / "ws"
    (root / "memory").mkdir(parents=True)
    if git_dir:  # a repository with no commit yet
        import subprocess

        subprocess.run(["git", "init", "-q"], cwd=root, check=True)
        past = MemoryHistory(root)
        assert past.available and past.commits == []
        assert past.commit_before(dt.datetime.now(dt.UTC)) is None
    else:
        past = MemoryHistory(root)
        assert not past.available and "not a git repository" in (past.note or "")
