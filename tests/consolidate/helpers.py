"""Helpers for consolidation tests: a workspace inside a temp git repo, staging files."""

from __future__ import annotations

import datetime as dt
import errno
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from support.git import git

from memcli.staging import StagingFile


def init_repo(root: Path) -> Path:
    """Turn `root` (a workspace) into a git repo with everything committed."""
    git(root, "init", "-q", "-b", "main")
    (root / ".gitignore").write_text("/memory/_staging/\n/.memcli/\n", encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "initial")
    return root


def head(root: Path) -> str:
    return git(root, "rev-parse", "HEAD").strip()


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under memory/ (staging included) and knowledge/, for before/after comparisons."""
    out = {}
    for top in ("memory", "knowledge"):
        for path in sorted((root / top).rglob("*")):
            if path.is_file():
                rel = path.relative_to(root).as_posix()
                if rel.endswith(".lock.guard"):
                    continue
                out[rel] = path.read_bytes()
    return out


def write_staging(root: Path, staging_id: str, session: str, rng: tuple[int, int], items: dict) -> Path:
    data = StagingFile(
        id=staging_id,
        agent="claude-code",
        source={"session_id": session, "range": list(rng)},
        model="openai/fake",
        prompt_version="test",
        created_at=dt.datetime(2026, 5, 20, 10, 0, tzinfo=dt.UTC),
        items=items,
    )
    path = root / "memory" / "_staging" / f"{staging_id}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data.model_dump(mode="json"), ensure_ascii=False), encoding="utf-8")
    return path


CONFIG = """\
[memory]
consolidation_model = "openai/fake-model"
context_tokens = 128000  # the fake model stands for a large-context one
extract_model = "openai/fake-model"
retries = {retries}
backoff_s = 0
backoff_max_s = 0
timeout_s = {timeout}

[consolidate]
trigger_files = 0
trigger_bytes = 0
max_iterations = {max_iterations}
repair_turns = {repair_turns}
coalesce_runs = {coalesce_runs}
no_progress_turns = {no_progress_turns}
"""


def configure(root: Path, *, retries: int = 1, timeout: float = 20, max_iterations: int = 12,
              repair_turns: int = 1, coalesce_runs: int = 1, no_progress_turns: int = 3) -> None:
    """`no_progress_turns` 0: a test of the other bounds (turns, window), which a model getting
    nowhere would otherwise stop first."""
    (root / "memcli.toml").write_text(
        CONFIG.format(retries=retries, timeout=timeout, max_iterations=max_iterations,
                      repair_turns=repair_turns, coalesce_runs=coalesce_runs,
                      no_progress_turns=no_progress_turns),
        encoding="utf-8",
    )


def decision(body: str, sources: list[tuple[str, int, int]], status: str = "resolved",
             replaced_by: str | None = None, created: str = "2026-05-20T10:00:00+00:00") -> str:
    src = "".join(f"  - session_id: {s}\n    range: [{a}, {b}]\n" for s, a, b in sources)
    extra = f"replaced_by: {replaced_by}\n" if replaced_by else ""
    return (f"---\ncreated_at: {created}\nupdated_at: 2026-05-20T10:00:00+00:00\nstatus: {status}\n"
            f"{extra}sources:\n{src}---\n{body}\n")


def make_unwritable(folder: Path):
    """Make creating files in `folder` fail with a real OS error; returns the undo, or None when this
    machine cannot (root without chattr support). Root ignores permission bits, so root uses the
    immutable attribute."""
    import os
    import shutil

    if os.geteuid() != 0:
        mode = folder.stat().st_mode
        folder.chmod(0o555)
        return lambda: folder.chmod(mode)
    if shutil.which("chattr") is None:
        return None
    if subprocess.run(["chattr", "+i", str(folder)], capture_output=True).returncode != 0:
        return None
    return lambda: subprocess.run(["chattr", "-i", str(folder)], check=True)


def finish_call(note: str = "done") -> dict:
    from support.fake_llm import tool_call

    return tool_call("finish_phase", {"note": note})


def dispose_call(items: list[str], action: str = "dropped", records: list[str] | None = None,
                 reason: str = "not worth keeping") -> dict:
    from support.fake_llm import tool_call

    args: dict = {"items": items, "action": action, "reason": reason}
    if records:
        args["records"] = records
    return tool_call("dispose", args, call_id=f"call_dispose_{'_'.join(items)}_{action}")


def item_ids(user_text: str) -> list[str]:
    """The staging item ids an integration message shows (`"id": "i1"`)."""
    import re

    return re.findall(r'"id": "(i\d+)"', user_text)


def sources_shown(user_text: str) -> list[tuple[str, int, int]]:
    """The staging Sources an integration message shows, in its YAML form."""
    import re

    found = re.findall(r"  - session_id: \"?([^\"\n]+)\"?\n    range: \[(\d+), (\d+)\]", user_text)
    return [(s, int(a), int(b)) for s, a, b in found]


# -- real memcli processes (test_kill*.py); conftest reaps whatever a failed test left running --

STARTED: list[subprocess.Popen] = []


def memcli(ws: Path, *args: str) -> subprocess.Popen:
    """`memcli ARGS -w WS` as a process group leader, so a test can kill it with all its children."""
    proc = subprocess.Popen([sys.executable, "-m", "memcli", *args, "-w", str(ws)], start_new_session=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    STARTED.append(proc)
    return proc


def wait_for(cond, what: str, timeout: float = 180.0) -> None:
    """Poll a condition the test is waiting on (never a bare sleep standing in for one)."""
    end = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def kill_group(proc: subprocess.Popen) -> None:
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)


def status_of(ws: Path) -> tuple[int, str]:
    proc = memcli(ws, "status")
    out, err = proc.communicate(timeout=180)
    return proc.returncode, out + err


def parent_of(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[-1].split()[1])


def alive(pid: int) -> bool:
    """True while `pid` runs (a zombie nobody reaped counts as ended)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[-1].split()[0]
    except OSError:
        return False
    return state != "Z"


class GatedHook:
    """A pre-commit hook that tells the test it runs (its pid in `ready`) and waits at a fifo until
    the test opens it: kill points inside the hook are reached exactly, never by timing."""

    def __init__(self, root: Path, tmp: Path, then: str = "exit 0", name: str = "pre-commit") -> None:
        self.ready, self.gate = tmp / "hook-ready", tmp / "hook-gate"
        os.mkfifo(self.gate)
        self.path = root / ".git/hooks" / name
        ready = f"echo $$ > '{self.ready}.tmp' && mv '{self.ready}.tmp' '{self.ready}'"
        self.path.write_text(f"#!/bin/sh\n{ready}\nread _ < '{self.gate}'\n{then}\n")
        self.path.chmod(0o755)

    def wait(self) -> int:
        wait_for(self.ready.exists, "the pre-commit hook")
        return int(self.ready.read_text())

    def release(self) -> bool:
        """Let a waiting hook go on; False when no hook is there to read the fifo (it was ended)."""
        try:
            fd = os.open(self.gate, os.O_WRONLY | os.O_NONBLOCK)
        except OSError as exc:
            if exc.errno == errno.ENXIO:
                return False
            raise
        os.write(fd, b"go\n")
        os.close(fd)
        return True
