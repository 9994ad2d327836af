"""`memcli init`: layout, commented config, .gitignore entries; a second run changes nothing."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from memcli.cli import main
from memcli.config import Config, load_config

FOLDERS = ("memory/decisions", "memory/requests", "memory/workflow", "knowledge", "memory/_staging")


def _init(capsys: pytest.CaptureFixture[str], root: Path) -> str:
    with pytest.raises(SystemExit) as exit_info:
        main(["init", "--workspace", str(root)])
    assert exit_info.value.code == 0
    return capsys.readouterr().out


def _snapshot(root: Path) -> dict[str, bytes | None]:
    return {
        p.relative_to(root).as_posix(): (p.read_bytes() if p.is_file() else None)
        for p in sorted(root.rglob("*"))
    }


def test_creates_layout_config_and_gitignore(tmp_path: Path, capsys) -> None:
    out = _init(capsys, tmp_path)
    assert "Initialised" in out
    for folder in FOLDERS:
        assert (tmp_path / folder).is_dir(), folder
    config_text = (tmp_path / "memcli.toml").read_text(encoding="utf-8")
    # Commented: every value is a documented default, so the file parses to the defaults.
    assert "# body_max_chars = 8000" in config_text
    assert tomllib.loads(config_text) is not None
    assert load_config(tmp_path) == Config()
    ignored = (tmp_path / ".gitignore").read_text(encoding="utf-8").splitlines()
    assert "/memory/_staging/" in ignored and "/.memcli/" in ignored
    assert (tmp_path / "memory/summary.md").read_text(encoding="utf-8").startswith("---\nupdated_at: ")


def test_second_run_changes_nothing(tmp_path: Path, capsys) -> None:
    _init(capsys, tmp_path)
    first = _snapshot(tmp_path)
    out = _init(capsys, tmp_path)
    assert "already initialised" in out
    assert _snapshot(tmp_path) == first


def test_keeps_existing_files_and_gitignore_lines(tmp_path: Path, capsys) -> None:
    (tmp_path / ".gitignore").write_text("node_modules/\n/.memcli/", encoding="utf-8")  # no final newline
    (tmp_path / "memcli.toml").write_text("[lint]\nbody_max_chars = 5000\n", encoding="utf-8")
    (tmp_path / "knowledge").mkdir()
    (tmp_path / "knowledge/wal.md").write_text("keep me\n", encoding="utf-8")
    _init(capsys, tmp_path)
    assert (tmp_path / "memcli.toml").read_text(encoding="utf-8") == "[lint]\nbody_max_chars = 5000\n"
    assert (tmp_path / "knowledge/wal.md").read_text(encoding="utf-8") == "keep me\n"
    assert not (tmp_path / "knowledge/.gitkeep").exists()  # the folder is not empty
    lines = (tmp_path / ".gitignore").read_text(encoding="utf-8").splitlines()
    assert lines[0] == "node_modules/" and lines.count("/.memcli/") == 1 and "/memory/_staging/" in lines
    again = _snapshot(tmp_path)
    _init(capsys, tmp_path)
    assert _snapshot(tmp_path) == again


def test_an_initialised_workspace_lints_clean_and_git_ignores_staging(tmp_path: Path, capsys) -> None:
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    _init(capsys, tmp_path)
    (tmp_path / "memory/_staging/abc.json").write_text("{}", encoding="utf-8")
    status = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "_staging" not in status and "memory/decisions/.gitkeep" in status
    assert "memory/summary.md" in status  # with valid frontmatter: the lint below is clean
    proc = subprocess.run(
        [sys.executable, "-m", "memcli", "lint", "--workspace", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.parametrize("on_path", [True, False])
def test_says_when_git_cannot_find_memcli_for_the_merge_driver(
        tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch, on_path: bool) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    if on_path:
        (bin_dir / "memcli").write_text("#!/bin/sh\n")
        (bin_dir / "memcli").chmod(0o755)
    git = Path(shutil.which("git") or "git").parent  # where git is; memcli is not there
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{git}")
    out = _init(capsys, tmp_path)
    assert ("warning: no `memcli` on PATH: git's merge driver for records run" in out) is not on_path
    assert "warning" not in _init(capsys, tmp_path)  # nothing registered the second time


def test_the_config_shows_every_section_and_each_setting_in_it(tmp_path: Path, capsys) -> None:
    """What a hint names (`[sessions] paths`) is in the file `init` writes, commented, as its default."""
    import dataclasses

    _init(capsys, tmp_path)
    text = (tmp_path / "memcli.toml").read_text(encoding="utf-8")
    for section in dataclasses.fields(Config):
        assert f"\n[{section.name}]" in text, section.name
        block = text.split(f"\n[{section.name}]", 1)[1].split("\n[", 1)[0]
        if section.name == "sessions":  # its six homes are named in one comment
            assert all(f.name in block for f in dataclasses.fields(Config().sessions))
