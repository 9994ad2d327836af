"""A refresh that has thousands of files to read (a fresh clone's first command) says so in one line
on a terminal's stderr before it starts, so a first `memcli search` does not look hung; piped or
logged output stays as it was, and an everyday refresh says nothing."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

from store.kit import workspace_gen

from memcli.store.build import MIN_FILES


def _run(root: Path, state: Path, *args: str, tty: bool) -> tuple[int, str]:
    """(exit code, what reached stderr) of `memcli ARGS` in `root`, stderr a terminal or a pipe."""
    env = {**os.environ, "MEMCLI_STATE_DIR": str(state)}
    if not tty:
        done = subprocess.run([sys.executable, "-m", "memcli", *args], cwd=root, env=env,
                              capture_output=True, text=True, timeout=300)
        return done.returncode, done.stderr
    main, side = pty.openpty()
    try:
        proc = subprocess.Popen([sys.executable, "-m", "memcli", *args], cwd=root, env=env,
                                stdout=subprocess.DEVNULL, stderr=side)
        os.close(side)
        got = b""
        while True:
            try:
                chunk = os.read(main, 4096)
            except OSError:  # the terminal closed with the process
                break
            if not chunk:
                break
            got += chunk
        return proc.wait(timeout=300), got.decode()
    finally:
        os.close(main)


def test_a_large_first_build_says_what_it_reads_on_a_terminal_only(tmp_path: Path) -> None:
    root = workspace_gen.generate(tmp_path / "ws", MIN_FILES + 100)
    count = sum(1 for _ in root.rglob("*.md"))
    state = tmp_path / "state"
    code, err = _run(root, state, "search", "deploy", tty=True)
    assert code == 0 and f"memcli: {count:,} record files to read into the store…" in err, err
    code, err = _run(root, state, "search", "deploy", tty=True)  # nothing to read: nothing said
    assert code == 0 and "memcli:" not in err, err
    code, err = _run(root, tmp_path / "piped", "search", "deploy", tty=False)
    assert code == 0 and err == ""


def test_the_first_search_after_context_says_it_indexes(tmp_path: Path) -> None:
    root = workspace_gen.generate(tmp_path / "ws", MIN_FILES + 100)
    for path in [*root.glob("memory/*/*.md")]:  # all knowledge: what a session start reads
        path.rename(root / "knowledge" / path.name)
    count = sum(1 for _ in root.rglob("*.md"))
    state = tmp_path / "state"
    code, err = _run(root, state, "context", tty=True)
    assert code == 0 and f"memcli: {count:,} record files to read into the store…" in err, err
    code, err = _run(root, state, "search", "deploy", tty=True)
    assert code == 0 and f"memcli: {count:,} records to index for search…" in err, err
