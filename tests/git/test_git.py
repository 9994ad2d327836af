"""memcli.git, the one module that runs git: root lookup, failures in git's words, merge-file."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.git import git as sh

from memcli import git


def _repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "sub" / "dir").mkdir(parents=True)
    sh(root, "init", "-q", "-b", "main")
    return root


def test_the_root_is_found_from_a_subfolder_and_none_outside_a_repository(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    assert git.top(root / "sub" / "dir") == root.resolve()
    assert git.prefix_in(root, root / "sub" / "dir") == "sub/dir/"
    assert git.prefix_in(root, root) == ""
    outside = tmp_path / "plain"
    outside.mkdir()
    assert git.top(outside) is None
    assert git.top_and_head(outside) == (None, None)


def test_head_is_none_before_the_first_commit_then_the_commit(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    assert git.top_and_head(root) == (root.resolve(), None)
    (root / "a.txt").write_text("a\n", encoding="utf-8")
    sh(root, "add", "a.txt")
    sh(root, "commit", "-qm", "a")
    assert git.top_and_head(root) == (root.resolve(), sh(root, "rev-parse", "HEAD").strip())


def test_a_failure_carries_gits_last_line_and_text_says_none(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    with pytest.raises(git.GitFailed) as failed:
        git.output(root, "rev-parse", "--verify", "no-such-ref")
    assert failed.value.command == "rev-parse" and failed.value.status == 128
    assert str(failed.value) == "git rev-parse failed: fatal: Needed a single revision"
    assert git.text(root, "rev-parse", "--verify", "no-such-ref") is None


def test_no_git_on_the_machine_is_said_not_raised_as_an_oserror(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # an empty folder: no git
    with pytest.raises(git.GitMissing, match="git is not installed"):
        git.run(tmp_path, "status")
    assert git.text(tmp_path, "status") is None
    assert git.top_and_head(tmp_path) == (None, None)


def test_merge_file_merges_clean_changes_and_counts_conflicts() -> None:
    base = b"one\ntwo\nthree\n"
    clean = git.merge_file(b"ONE\ntwo\nthree\n", base, b"one\ntwo\nTHREE\n")
    assert (clean.returncode, clean.stdout) == (0, b"ONE\ntwo\nTHREE\n")
    clash = git.merge_file(b"mine\ntwo\nthree\n", base, b"yours\ntwo\nthree\n")
    assert clash.returncode == 1
    assert clash.stdout == b"<<<<<<< ours\nmine\n=======\nyours\n>>>>>>> theirs\ntwo\nthree\n"


def test_environment_changes_only_what_is_asked(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    assert git.environment() is None
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Someone")
    env = git.environment(identity=True, index=tmp_path / "idx")
    assert env is not None and env["GIT_AUTHOR_NAME"] == "Someone"  # the user's identity wins
    assert env["GIT_INDEX_FILE"] == str(tmp_path / "idx")
