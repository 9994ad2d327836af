"""kill -9 at random points (issue #37, item 6) of `memcli skills sync`, `memcli import`, `memcli
staging push` and `memcli hooks install`, each run as its own process with its own HOME: after the
kill every file is its old bytes, its new bytes (those the next complete run leaves), or — for a
file whose bytes hold a time (a backup, a staging file's created_at) — whole by its format; no lock
keeps the next run from succeeding; the agents' config files still parse and keep the user's keys.

The delays are seeded (SEED) and spread over the length of an uninterrupted run of the same command
on the same kind of world, measured first, so the kills land before, during and after the writes.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import re
import shutil
import subprocess
import sys
import time
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from imports.helpers import echo_blocks, make_world
from support.fake_llm import FakeLLM

from memcli.extract.remember import Remembered, staging_for
from memcli.staging import StagingFile, write_staging

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "workspace"
SEED = 37
POINTS = 3  # kills per command
ATTEMPTS = 3  # runs after a kill until one must have succeeded: a lock never blocks for ever
USER_CLAUDE = {"permissions": {"allow": ["Bash(ls)"]}, "theme": "dark"}
USER_CODEX = 'model = "o3"\n\n[mcp_servers.other]\ncommand = "other-server"\n'
USER_GEMINI = {"theme": "GitHub", "mcpServers": {"other": {"command": "other-server"}}}
_TEMP = re.compile(r"^\..+\.[A-Za-z0-9_]{6,}\.tmp$")  # an atomic write's temp (memcli.atomicio)


@dataclass
class World:
    root: Path
    home: Path
    env: dict[str, str]

    def dirs(self) -> list[Path]:
        return [self.root, self.home, Path(self.env["MEMCLI_STATE_DIR"])]


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, text=True).stdout


def _world(base: Path, root: Path) -> World:
    home, state = base / "home", base / "state"
    home.mkdir(parents=True, exist_ok=True)
    state.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "HOME": str(home), "MEMCLI_STATE_DIR": str(state), "PYTHONPATH": str(REPO)}
    return World(root, home, env)


def example(base: Path) -> World:
    """The example workspace in git, with the user's own settings for three agents."""
    root = base / "ws"
    shutil.copytree(EXAMPLE, root)
    (root / ".claude").mkdir()
    (root / ".claude" / "settings.json").write_text(json.dumps(USER_CLAUDE), encoding="utf-8")
    (root / ".codex").mkdir()
    (root / ".codex" / "config.toml").write_text(USER_CODEX, encoding="utf-8")
    (root / ".gemini").mkdir()
    (root / ".gemini" / "settings.json").write_text(json.dumps(USER_GEMINI), encoding="utf-8")
    (root / ".gitignore").write_text("/memory/_staging/\n/.memcli/\n", encoding="utf-8")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "initial")
    return _world(base, root)


def with_staging(base: Path) -> World:
    """The example workspace with 40 staging files and a bare remote to publish them to."""
    world = example(base)
    subprocess.run(["git", "init", "-q", "--bare", str(base / "remote.git")], check=True)
    git(world.root, "remote", "add", "origin", str(base / "remote.git"))
    for n in range(40):
        call = Remembered(n, n, "decision", f"Decision {n}: keep the index in SQLite.", "one file")
        staging = staging_for("k", f"session-{n % 4}", "claude-code", call)
        write_staging(world.root / "memory" / "_staging", staging)
    return world


def published(world: World) -> set[str]:
    tree = git(world.root.parent / "remote.git", "ls-tree", "--name-only", "refs/memcli/staging/me")
    return {name.removesuffix(".json") for name in tree.split()}


def snapshot(world: World) -> dict[Path, bytes]:
    out = {}
    for top in world.dirs():
        for path in top.rglob("*"):
            inside = path.relative_to(top).parts
            if path.is_file() and ".git" not in inside and "remote.git" not in inside:
                out[path] = path.read_bytes()
    return out


def whole(path: Path, data: bytes, before: dict[Path, bytes]) -> bool:
    """Whether bytes that are neither a file's old nor its new ones are still a whole file."""
    if "backups" in path.parts:  # a copy of what a file held before, or the mark that it had none
        return (data == b"" and path.name.endswith(".absent")) or data in before.values()
    if path.suffix == ".json" and "_staging" in path.parts:
        StagingFile.model_validate_json(data)
        return True
    if path.suffix == ".json":
        json.loads(data)
        return True
    if path.suffix == ".jsonl":
        return all(json.loads(line) is not None for line in data.decode("utf-8").splitlines())
    return False


def agent_configs(world: World) -> None:
    """The agents' configs parse and still hold what the user had in them."""
    claude = json.loads((world.root / ".claude" / "settings.json").read_text(encoding="utf-8"))
    assert claude["theme"] == "dark" and "Bash(ls)" in claude["permissions"]["allow"]
    codex = tomllib.loads((world.root / ".codex" / "config.toml").read_text(encoding="utf-8"))
    assert codex["model"] == "o3" and codex["mcp_servers"]["other"]["command"] == "other-server"
    gemini = json.loads((world.root / ".gemini" / "settings.json").read_text(encoding="utf-8"))
    assert gemini["theme"] == "GitHub" and gemini["mcpServers"]["other"]["command"] == "other-server"
    for path in world.root.rglob("*"):  # every other config memcli may have written
        if path.is_file() and ".git" not in path.parts and path.suffix in (".json", ".toml"):
            text = path.read_text(encoding="utf-8")
            json.loads(text) if path.suffix == ".json" else tomllib.loads(text)


def _hooks_done(world: World) -> None:
    agent_configs(world)
    assert "memcli" in (world.root / ".mcp.json").read_text(encoding="utf-8")
    assert "memcli" in tomllib.loads((world.root / ".codex" / "config.toml").read_text())["mcp_servers"]


def _skills_done(world: World) -> None:
    for slug in ("sqlite-backup", "test-commands", "wal-mode"):
        assert (world.root / ".claude" / "skills" / slug / "SKILL.md").is_file()


def _import_done(world: World) -> None:
    files = (world.root / "memory" / "_staging").glob("*.json")
    staged = [StagingFile.model_validate_json(p.read_bytes()) for p in files]
    assert staged and all(s.items.requests for s in staged)


def _push_done(world: World) -> None:
    assert list((world.root / "memory" / "_staging").glob("*.json")) == []
    assert len(published(world)) == 40


def imported(base: Path, monkeypatch: pytest.MonkeyPatch) -> World:
    found = make_world(base, monkeypatch)  # its agents' homes are set in os.environ
    return _world(base, found.root)


@dataclass(frozen=True)
class Case:
    argv: tuple[str, ...]
    build: Callable[..., World]
    done: Callable[[World], None]
    ok: tuple[int, ...] = (0,)


CASES = {
    "skills-sync": Case(("skills", "sync", "--agent", "claude-code", "--agent", "codex"), example,
                        _skills_done),
    "hooks-install": Case(("hooks", "install", "--agent", "all"), example, _hooks_done),
    "staging-push": Case(("staging", "push", "origin", "--name", "me"), with_staging, _push_done),
    "import": Case(("import",), imported, _import_done),
}


def _run(case: Case, world: World) -> subprocess.CompletedProcess[str]:
    return subprocess.run(_argv(case, world), cwd=world.root, env=world.env, capture_output=True, text=True,
                          timeout=300)


def _stamps(world: World) -> set[tuple[str, int]]:
    out = set()
    for top in world.dirs():
        for folder, subdirs, files in os.walk(top):
            subdirs[:] = [d for d in subdirs if d not in (".git", "remote.git")]
            for name in files:
                with contextlib.suppress(FileNotFoundError):
                    out.add((os.path.join(folder, name), os.stat(os.path.join(folder, name)).st_mtime_ns))
    return out


def _writes(case: Case, world: World) -> tuple[int, tuple[float, float]]:
    """An uninterrupted run: its exit code, and the seconds from its start at which it first
    changed a file and at which it ended (the window the kills are spread over)."""
    before = _stamps(world)
    started = time.monotonic()
    err = world.root.parent / "reference.err"
    with err.open("wb") as sink:
        proc = subprocess.Popen(_argv(case, world), cwd=world.root, env=world.env, stdout=subprocess.DEVNULL,
                                stderr=sink)
        first = None
        while proc.poll() is None:
            if first is None and _stamps(world) != before:
                first = time.monotonic() - started
            time.sleep(0.02)
    end = time.monotonic() - started
    assert proc.returncode in case.ok, err.read_text(encoding="utf-8")
    return proc.returncode, ((first or 0.0) * 0.9, end)


def _argv(case: Case, world: World) -> list[str]:
    return [sys.executable, "-m", "memcli", *case.argv, "-w", str(world.root)]


@pytest.mark.parametrize("name", list(CASES))
def test_kill_9_at_random_points_leaves_nothing_half_written(
        name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_llm: FakeLLM) -> None:
    fake_llm.responder = echo_blocks
    case = CASES[name]
    build = (lambda base: case.build(base, monkeypatch)) if case.build is imported else case.build
    reference = build(tmp_path / "reference")
    _code, span = _writes(case, reference)
    case.done(reference)
    rng = random.Random(f"{SEED}-{name}")
    killed_mid_run = 0
    for point in range(POINTS):
        world = build(tmp_path / f"kill-{point}")
        before = snapshot(world)
        proc = subprocess.Popen(_argv(case, world), cwd=world.root, env=world.env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(*span))
        proc.kill()
        at_kill = snapshot(world)
        killed_mid_run += proc.wait() == -9 and at_kill != before
        for _ in range(ATTEMPTS):
            again = _run(case, world)
            if again.returncode in case.ok:
                break
        assert again.returncode in case.ok, (point, again.stderr)
        after = snapshot(world)
        for path, data in at_kill.items():
            if data in (before.get(path), after.get(path)) or _TEMP.match(path.name):
                continue
            assert whole(path, data, before), (point, path, data[:200])
        case.done(world)
        if name != "import":
            agent_configs(world)
    assert killed_mid_run, "no kill came while the command was writing: no point was tested"
