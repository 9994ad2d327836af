"""A real `git commit` through memcli's hook: the pre-commit framework path and the plain script.

Each path shows a bad record blocked, a good record committed, and the deletion of a decision that
another one references blocked (the deleted file is never passed to the hook; the reference
checks see the whole workspace).
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from support.git import git_result

REPO = Path(__file__).resolve().parents[1]
TS = "2026-04-27T10:00:00+09:00"


def _decision(status: str = "open", extra: str = "") -> str:
    return (
        f"---\ncreated_at: {TS}\nupdated_at: {TS}\nstatus: {status}\n{extra}"
        "sources:\n  - session_id: 4c2ddfdc-b619-4525-8d03-1950fb1b0257\n    range: [3, 18]\n---\nBody.\n"
    )


def _head(repo: Path) -> str:
    return git_result(repo, "rev-parse", "HEAD").stdout.strip()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A git repository holding a workspace: `use-sqlite` is referenced by `old-store`."""
    root = tmp_path / "repo"
    (root / "memory/decisions").mkdir(parents=True)
    (root / "knowledge").mkdir()
    (root / "memcli.toml").write_text("", encoding="utf-8")
    (root / "memory/decisions/use-sqlite.md").write_text(_decision(), encoding="utf-8")
    (root / "memory/decisions/old-store.md").write_text(
        _decision("replaced", "replaced_by: use-sqlite\n"), encoding="utf-8"
    )
    git_result(root, "init", "-q", "-b", "main")
    git_result(root, "add", ".")
    git_result(root, "commit", "-q", "-m", "initial")
    return root


def _exercise(repo: Path, env: dict[str, str], banner: str = "") -> None:
    def commit(message: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["git", "commit", "-m", message], cwd=repo, env=env, capture_output=True, text=True, timeout=180
        )

    start = _head(repo)
    # 1. A bad record is blocked, and says why.
    (repo / "memory/decisions/bad-one.md").write_text(_decision("Done"), encoding="utf-8")
    git_result(repo, "add", "memory/decisions/bad-one.md")
    blocked = commit("bad record")
    assert blocked.returncode != 0
    assert "memory/decisions/bad-one.md:4" in blocked.stdout + blocked.stderr
    assert "invalid-status" in blocked.stdout + blocked.stderr
    assert banner in blocked.stdout + blocked.stderr  # the framework's own report line
    assert _head(repo) == start
    git_result(repo, "rm", "-q", "--cached", "memory/decisions/bad-one.md")
    (repo / "memory/decisions/bad-one.md").unlink()

    # 2. A good record (Japanese text included) is committed.
    (repo / "knowledge/wal-mode.md").write_text(
        f"---\ncreated_at: {TS}\nupdated_at: {TS}\nkind: term\ndescription: WAL モードとは何か。\n"
        "model_invocation: false\nuser_invocable: true\nlast_sources: []\n---\n書き込み中も読み出せる。\n",
        encoding="utf-8",
    )
    git_result(repo, "add", "knowledge/wal-mode.md")
    done = commit("good record")
    assert done.returncode == 0, done.stdout + done.stderr
    assert _head(repo) != start
    good_head = _head(repo)

    # 3. Deleting a decision another one references is blocked, though only a deletion is staged.
    git_result(repo, "rm", "-q", "memory/decisions/use-sqlite.md")
    dangling = commit("delete referenced decision")
    assert dangling.returncode != 0
    out = dangling.stdout + dangling.stderr
    assert "memory/decisions/old-store.md:5" in out and "dangling-reference" in out
    assert _head(repo) == good_head


def test_plain_script_hook(repo: Path) -> None:
    hook = repo / ".git/hooks/pre-commit"
    shutil.copy(REPO / "hooks/pre-commit", hook)
    hook.chmod(0o755)
    env = {**os.environ, "MEMCLI": f"{shlex.quote(sys.executable)} -m memcli"}
    _exercise(repo, env)


def test_pre_commit_framework_hook(repo: Path, tmp_path: Path) -> None:
    if shutil.which("pre-commit") is None and not _has_module("pre_commit"):
        pytest.fail("pre-commit is a test dependency (pip install -e \".[test]\") and must be installed")
    (hook,) = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert (
        hook["id"] == "memcli-lint" and hook["language"] == "python" and hook["entry"].startswith("memcli ")
    )
    # Every field comes from our .pre-commit-hooks.yaml, except two that make it run offline:
    # `language: python` would make pre-commit pip-install memcli from a remote `repo:` into its own
    # virtualenv (network); as a `repo: local` hook with `language: system` it runs the memcli of
    # this test's interpreter instead — the same hook definition, without the install step.
    local = {
        **hook,
        "language": "system",
        "entry": f"{shlex.quote(sys.executable)} -m memcli {hook['entry'].split(' ', 1)[1]}",
    }
    local.pop("minimum_pre_commit_version", None)
    config = {"repos": [{"repo": "local", "hooks": [local]}]}
    (repo / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    git_result(repo, "add", ".pre-commit-config.yaml")
    git_result(repo, "commit", "-q", "--no-verify", "-m", "pre-commit config")
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home")}
    install = subprocess.run(
        [sys.executable, "-m", "pre_commit", "install"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert install.returncode == 0, install.stdout + install.stderr
    assert "pre-commit" in (repo / ".git/hooks/pre-commit").read_text(encoding="utf-8")
    _exercise(repo, env, banner="memcli lint")


def _has_module(name: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(name) is not None


def test_plain_script_hook_needs_no_xargs(repo: Path, tmp_path: Path) -> None:
    """BSD/macOS xargs runs nothing on empty input: the hook must not depend on it. Here `xargs` is
    one that never runs its command, so a hook that still pipes into it would let everything pass."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "xargs").write_text("#!/bin/sh\ncat >/dev/null\nexit 0\n", encoding="utf-8")
    (bin_dir / "xargs").chmod(0o755)
    hook = repo / ".git/hooks/pre-commit"
    shutil.copy(REPO / "hooks/pre-commit", hook)
    hook.chmod(0o755)
    env = {**os.environ, "MEMCLI": f"{shlex.quote(sys.executable)} -m memcli",
           "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    _exercise(repo, env)
    # a name with a space and Japanese reaches the Linter intact (one argument, not three)
    (repo / "memory/decisions/日本語 の名前.md").write_text(_decision("Done"), encoding="utf-8")
    git_result(repo, "add", "-A")
    blocked = subprocess.run(["git", "commit", "-m", "odd name"], cwd=repo, env=env, capture_output=True,
                             text=True, timeout=180)
    out = blocked.stdout + blocked.stderr
    assert blocked.returncode != 0 and "no such file" not in out
    assert "memory/decisions/日本語 の名前.md" in out
