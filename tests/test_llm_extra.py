"""`pip install memcli` without the `llm` extra: every command but the two model commands works, and
those exit 2 with the install line, changing nothing.

Each command runs in a subprocess where litellm cannot be imported: `sys.modules["litellm"] = None`
is Python's own way of saying "no such module" (an import raises ModuleNotFoundError and
`importlib.util.find_spec` answers None, exactly as when the package is absent).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from consolidate.helpers import init_repo, snapshot, write_staging
from support.fake_llm import FAKE_KEY
from support.git import git

from memcli.config import CACHE_FILE as CONFIG_CACHE

REPO = Path(__file__).resolve().parents[1]
TRANSCRIPT = (REPO / "tests/fixtures/transcripts/claude-code/codemie-ai__codemie-code/-tmp-private/"
              "4c2ddfdc-b619-4525-8d03-1950fb1b0257.jsonl")
INSTALL = 'pip install "memcli[llm]"'
PROBE = """
import sys
sys.modules["litellm"] = None  # not installed
from memcli.cli import main
main(sys.argv[1:])
"""
CONFIG = """\
[memory]
extract_model = "openai/fake-model"
consolidation_model = "openai/fake-model"
context_tokens = 128000  # the fake model stands for a large-context one

[extract]
idle_minutes = 0

[consolidate]
trigger_files = 0
trigger_bytes = 0
"""


def _memcli(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "OPENAI_API_KEY": FAKE_KEY, "OPENAI_API_BASE": "http://127.0.0.1:9/v1"}
    return subprocess.run([sys.executable, "-c", PROBE, *args], cwd=cwd, capture_output=True, text=True,
                          env=env, timeout=120)


def _state() -> dict[str, bytes]:
    """The state folder, less the caches a read may refresh: the session scan (reading sessions)
    and the validated config (reading memcli.toml)."""
    state = Path(os.environ["MEMCLI_STATE_DIR"])
    return {p.name: p.read_bytes() for p in state.rglob("*")
            if p.is_file() and p.name not in ("sessions-scan.json", CONFIG_CACHE)}


@pytest.fixture
def ws(example_ws: Path) -> Path:
    (example_ws / "memcli.toml").write_text(CONFIG, encoding="utf-8")
    return init_repo(example_ws)


@pytest.mark.parametrize("argv", [
    ["lint"], ["lint", "--paths-only", "memory/summary.md"], ["rules"], ["rules", "similar-slugs"],
    ["search", "retry"], ["context"], ["gc-report"], ["metrics"], ["status"],
    ["sessions", str(TRANSCRIPT.parent)], ["source", "4c2ddfdc:3-4", "--path", str(TRANSCRIPT)],
    ["extract", "--dry-run", str(TRANSCRIPT)], ["consolidate", "--if-needed"],
    ["eval", "--path", str(REPO / "tests/fixtures/transcripts")],
])
def test_commands_that_need_no_model(ws: Path, argv: list[str]) -> None:
    if argv == ["consolidate", "--if-needed"]:
        (ws / "memcli.toml").write_text(CONFIG.replace("trigger_files = 0", "trigger_files = 5"))
    done = _memcli(ws, *argv)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "litellm" not in done.stderr


def test_init_needs_no_model(tmp_path: Path) -> None:
    done = _memcli(tmp_path, "init")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "memcli.toml").is_file()


def test_extract_says_how_to_install_and_changes_nothing(ws: Path, tmp_path: Path) -> None:
    session = tmp_path / "sessions" / TRANSCRIPT.name
    session.parent.mkdir()
    shutil.copy(TRANSCRIPT, session)
    before = snapshot(ws), _state()
    done = _memcli(ws, "extract", str(session))
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.strip().splitlines() == [
        f"Error: extract and consolidate call a model through litellm, which is not installed: {INSTALL}"]
    assert (snapshot(ws), _state()) == before  # no staging, no ledger span, no run in the history


def test_consolidate_says_how_to_install_and_changes_nothing(ws: Path) -> None:
    write_staging(ws, "s1", "4c2ddfdc-b619-4525-8d03-1950fb1b0257", (3, 18), {"decisions": [
        {"title": "Keep tests offline", "decision": "No test reaches the network", "rationale": "CI"}]})
    before, head = snapshot(ws), git(ws, "rev-parse", "HEAD")
    done = _memcli(ws, "consolidate")
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.strip().splitlines()[-1] == (
        f"Error: extract and consolidate call a model through litellm, which is not installed: {INSTALL}")
    assert snapshot(ws) == before and git(ws, "rev-parse", "HEAD") == head
    assert not (ws / "memory" / "consolidate.lock").exists()
