"""Real `git merge` in temp repositories with the driver that `memcli init` registers."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import yaml
from support.git import git, git_result

from memcli.recordtext import split

REC = "memory/decisions/use-sqlite.md"


def memcli(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "memcli", *args], cwd=root, capture_output=True, text=True,
                          timeout=120)


def record(sources: list[tuple[str, int, int]], body: str, updated: str = "2026-04-18T09:00:00+09:00") -> str:
    lines = ["---", "created_at: 2026-04-18T09:00:00+09:00", f"updated_at: {updated}", "status: resolved",
             "sources:"]
    for sid, start, end in sources:
        lines += [f"  - session_id: {sid}", f"    range: [{start}, {end}]"]
    return "\n".join([*lines, "---"]) + "\n" + body


def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    git_result(root, "init", "-q", "-b", "main")
    assert memcli(root, "init").returncode == 0
    (root / REC).write_text(record([("s1", 0, 3)], "SQLite.\n\nOne file.\n\nNo server.\n"), encoding="utf-8")
    git_result(root, "add", "-A")
    git_result(root, "commit", "-q", "-m", "base")
    return root


def branch(root: Path, name: str, text: str) -> None:
    git_result(root, "switch", "-q", "-c", name, "main")
    (root / REC).write_text(text, encoding="utf-8")
    git_result(root, "commit", "-q", "-am", name)


def meta(text: str) -> dict:
    parts = split(text)
    assert not isinstance(parts, str)
    return yaml.safe_load(parts[0])


def test_init_registers_the_driver_once(tmp_path: Path) -> None:
    root = repo(tmp_path)
    attributes = (root / ".gitattributes").read_text(encoding="utf-8")
    assert "memory/** merge=memcli" in attributes and "knowledge/** merge=memcli" in attributes
    assert git_result(root, "check-attr", "merge", "--", REC).stdout.strip().endswith("memcli")
    staged = git_result(root, "check-attr", "merge", "--", "memory/_staging/x.json").stdout
    assert staged.strip().endswith("unspecified")
    assert git(root, "config", "merge.memcli.driver").strip() == "memcli merge-driver %O %A %B %P"
    again = memcli(root, "init")
    assert "already initialised" in again.stdout
    assert (root / ".gitattributes").read_text(encoding="utf-8") == attributes


def test_init_on_an_existing_clone_adds_only_what_is_missing(tmp_path: Path) -> None:
    root = repo(tmp_path)
    clone = tmp_path / "clone"
    git_result(tmp_path, "clone", "-q", str(root), str(clone))
    # config does not travel
    assert git_result(clone, "config", "merge.memcli.driver", check=False).returncode == 1
    status = memcli(clone, "status")
    assert "no memcli merge driver" in status.stdout
    before = (clone / ".gitattributes").read_bytes()
    done = memcli(clone, "init")
    assert "merge driver in git config" in done.stdout and ".gitattributes" not in done.stdout
    assert (clone / ".gitattributes").read_bytes() == before
    assert "no memcli merge driver" not in memcli(clone, "status").stdout


def test_two_branches_merge_field_by_field(tmp_path: Path) -> None:
    root = repo(tmp_path)
    ours = "SQLite, in WAL mode.\n\nOne file.\n\nNo server.\n"
    theirs = "SQLite.\n\nOne file.\n\nNo server to run.\n"
    branch(root, "a", record([("s1", 0, 3), ("a-session", 0, 5)], ours, "2026-04-19T09:00:00+09:00"))
    branch(root, "b", record([("s1", 0, 3), ("b-session", 2, 8)], theirs, "2026-04-20T09:00:00+09:00"))
    git_result(root, "switch", "-q", "a")
    plain = git_result(root, "-c", "merge.memcli.driver=false", "merge", "--no-edit", "b", check=False)
    assert plain.returncode != 0  # without the driver the Source lists collide
    git_result(root, "merge", "--abort")
    git_result(root, "merge", "--no-edit", "b")
    text = (root / REC).read_text(encoding="utf-8")
    assert "<<<<<<<" not in text
    data = meta(text)
    assert [s["session_id"] for s in data["sources"]] == ["s1", "a-session", "b-session"]
    assert str(data["updated_at"]).startswith("2026-04-20")
    assert "WAL mode" in text and "No server to run." in text
    lint = memcli(root, "lint")
    assert lint.returncode == 0, lint.stdout + lint.stderr


def test_a_true_conflict_stops_git_with_readable_markers(tmp_path: Path) -> None:
    root = repo(tmp_path)
    branch(root, "a", record([("s1", 0, 3), ("a", 0, 1)], "Postgres after all.\n\nOne file.\n\nNo server.\n"))
    branch(root, "b", record([("s1", 0, 3), ("b", 0, 1)], "DuckDB after all.\n\nOne file.\n\nNo server.\n"))
    git_result(root, "switch", "-q", "a")
    done = git_result(root, "merge", "--no-edit", "b", check=False)
    assert done.returncode == 1 and "CONFLICT" in done.stdout
    text = (root / REC).read_text(encoding="utf-8")
    assert "<<<<<<< ours\nPostgres after all.\n=======\nDuckDB after all.\n>>>>>>> theirs\n" in text
    assert "session_id: a" in text and "session_id: b" in text
    assert git_result(root, "status", "--porcelain").stdout.startswith("UU " + REC)


def test_modify_delete_stops_and_keeps_the_changed_text(tmp_path: Path) -> None:
    root = repo(tmp_path)
    git_result(root, "switch", "-q", "-c", "a")
    git_result(root, "rm", "-q", REC)
    git_result(root, "commit", "-q", "-m", "drop")
    branch(root, "b", record([("s1", 0, 3)], "Changed.\n"))
    git_result(root, "switch", "-q", "a")
    assert git_result(root, "merge", "--no-edit", "b", check=False).returncode == 1
    assert "Changed." in (root / REC).read_text(encoding="utf-8")
