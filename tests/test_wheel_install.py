"""memcli as a user installs it: build the sdist, build the wheel from that sdist (what `python -m
build` does), install the wheel into a fresh virtual environment, and run the commands there, far
from the checkout: lint, context, then extract and consolidate against the scripted model server.

The environment holds no editable install and no repository path. Its third-party dependencies are
this interpreter's site-packages, appended through a `.pth` line (a plain path entry: the `.pth`
files inside it, such as an editable install's finder, are not run), so the test needs no network;
memcli itself comes from the wheel, which the test checks. The light install (`pip install memcli`,
no `llm` extra) is a second environment whose dependency folder holds everything but litellm.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import time
import venv
import zipfile
from pathlib import Path

import pytest
from support.claude_transcript import SESSION, assistant_text, tool_result, tool_use, user, write_session
from support.fake_llm import Reply, tool_call
from support.git import git
from support.pipeline import pipeline_config

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "examples" / "workspace"
TRANSCRIPT = (REPO / "tests/fixtures/transcripts/claude-code/codemie-ai__codemie-code/-tmp-private/"
              "4c2ddfdc-b619-4525-8d03-1950fb1b0257.jsonl")
PROMPTS = sorted(p.name for p in (REPO / "memcli" / "prompts").glob("*.md"))
RECORD = "memory/decisions/installed-wheel-works.md"
CONFIG = pipeline_config(max_iterations=6)
_SOURCE = re.compile(r"  - session_id: (\S+)\n    range: \[(\d+), (\d+)\]\n")
_IGNORE = shutil.ignore_patterns(".git", "build", "dist", "*.egg-info", "__pycache__", ".memcli", ".venv*",
                                 ".pytest_cache", ".ruff_cache", "node_modules")  # the e2e agents


def _clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    return {**env, **extra}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """memcli's wheel, built from its sdist."""
    work = tmp_path_factory.mktemp("wheel")
    shutil.copytree(REPO, work / "src", ignore=_IGNORE)  # the build writes build/ and egg-info
    # The sdist, then the wheel built from the unpacked sdist, as `python -m build` does; no isolated
    # build environment (that would download setuptools): the test extras hold the backend.
    done = subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(work / "dist"),
                           str(work / "src")], capture_output=True, text=True, env=_clean_env())
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    (sdist,) = (work / "dist").glob("*.tar.gz")
    (wheel,) = (work / "dist").glob("*.whl")
    with tarfile.open(sdist) as tar:
        names = set(tar.getnames())
    top = sdist.name.removesuffix(".tar.gz")
    assert {f"{top}/memcli/prompts/{name}" for name in PROMPTS} <= names
    with zipfile.ZipFile(wheel) as whl:
        listed = set(whl.namelist())
    assert {f"memcli/prompts/{name}" for name in PROMPTS} <= listed
    assert "memcli/agents/pi/memcli.ts" in listed  # the extension `hooks install --agent pi` writes
    assert not any(name.startswith(("prompts/", "tests/")) for name in listed)
    return wheel


def _without(folders: list[str], dest: Path, left_out: tuple[str, ...]) -> list[str]:
    """A folder of links to everything in `folders` but the distributions named `left_out`."""
    dest.mkdir()
    for folder in folders:
        for entry in Path(folder).iterdir():
            name = entry.name.split("-")[0].split(".")[0].lower()  # litellm, litellm-1.7.dist-info
            if name not in left_out and not (dest / entry.name).exists():
                (dest / entry.name).symlink_to(entry)
    return [str(dest)]


def _venv(wheel: Path, env_dir: Path, left_out: tuple[str, ...] = ()) -> Path:
    """The bin/ folder of a fresh venv holding memcli installed from `wheel`, its dependencies this
    interpreter's (less the distributions `left_out`)."""
    venv.create(env_dir, with_pip=False)
    python = env_dir / "bin" / "python"
    site = Path(subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    deps = list(dict.fromkeys([sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]]))
    if left_out:
        deps = _without(deps, env_dir.parent / f"{env_dir.name}-site", left_out)
    (site / "zz-host-dependencies.pth").write_text("\n".join(deps) + "\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps",
                           "--no-index", str(wheel)], capture_output=True, text=True, env=_clean_env())
    assert done.returncode == 0, done.stderr[-3000:]
    where = subprocess.run([python, "-c", "import json, memcli, sys; print(memcli.__file__); "
                            "print(json.dumps(sys.path))"],
                           capture_output=True, text=True, check=True, cwd=env_dir, env=_clean_env())
    module, path = where.stdout.splitlines()
    assert Path(module).is_relative_to(site), module
    # the checkout is not importable (its .venv may be: the host's dependencies can live there)
    assert not any(entry and Path(entry).resolve() == REPO for entry in json.loads(path))
    return env_dir / "bin"


@pytest.fixture(scope="module")
def installed(wheel: Path) -> Path:
    return _venv(wheel, wheel.parent.parent / "venv")


@pytest.fixture(scope="module")
def light(wheel: Path) -> Path:
    """`pip install memcli` without the `llm` extra: litellm cannot be found."""
    bin_dir = _venv(wheel, wheel.parent.parent / "light", left_out=("litellm",))
    probe = "import importlib.util as u; print(u.find_spec('litellm'))"
    found = subprocess.run([bin_dir / "python", "-c", probe], capture_output=True, text=True, check=True,
                           env=_clean_env())
    assert found.stdout.strip() == "None"
    return bin_dir


def _memcli(bin_dir: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([bin_dir / "memcli", *args], cwd=cwd, capture_output=True, text=True,
                          env=_clean_env(), timeout=300)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    shutil.copytree(EXAMPLE, root)
    (root / "memcli.toml").write_text(CONFIG, encoding="utf-8")
    (root / ".gitignore").write_text("/memory/_staging/\n/.memcli/\n", encoding="utf-8")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "initial")
    return root


def test_lint_and_context_from_the_wheel(installed: Path, workspace: Path) -> None:
    done = _memcli(installed, workspace, "lint")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "no problems" in done.stdout
    done = _memcli(installed, workspace, "context")
    assert done.returncode == 0, done.stderr
    assert (workspace / "memory/summary.md").read_text(encoding="utf-8").splitlines()[-1] in done.stdout


class _Model:
    """Extract: one decision per chunk. Consolidate: write one record citing the staged Sources."""

    def __call__(self, body: dict) -> Reply:
        if "tools" not in body:
            return Reply(content=json.dumps({
                "decisions": [{"title": "Installed wheel works", "decision": "Ship prompts in the wheel",
                               "rationale": "an installed memcli must find its prompts"}],
                "discussions": [], "attempts": [], "requests": []}))
        last = body["messages"][-1]
        if last["role"] == "user" and "Phase 1 of 2: integration" in last["content"]:
            sources = [{"session_id": s, "range": [a, b]} for s, a, b in _SOURCE.findall(last["content"])]
            assert sources
            listed = "".join(f"  - session_id: {s['session_id']}\n"
                             f"    range: [{s['range'][0]}, {s['range'][1]}]\n" for s in sources)
            content = ("---\ncreated_at: 2026-05-20T10:00:00+00:00\nupdated_at: 2026-05-20T10:00:00+00:00\n"
                       f"status: resolved\nsources:\n{listed}---\nShip the prompts inside the wheel.\n\n"
                       "Why: an installed memcli must find its prompts.\n")
            return Reply(tool_calls=[tool_call("memory_write", {
                "path": RECORD, "mode": "create", "content": content, "reason": "decision from staging"})])
        if last["role"] == "tool" and "created" in last["content"]:  # every item went into RECORD
            ids = re.findall(r'"id": "(i\d+)"', body["messages"][1]["content"])
            return Reply(tool_calls=[
                tool_call("dispose", {"items": ids, "action": "integrated", "records": [RECORD],
                                      "reason": "the decision"}),
                tool_call("finish_phase", {"note": "integration done"})])
        return Reply(tool_calls=[tool_call("finish_phase", {"note": "done"})])


def test_extract_and_consolidate_from_the_wheel(installed: Path, workspace: Path, fake_llm,
                                                tmp_path: Path) -> None:
    fake_llm.responder = _Model()
    session = tmp_path / "sessions" / TRANSCRIPT.name
    session.parent.mkdir()
    shutil.copy(TRANSCRIPT, session)

    done = _memcli(installed, workspace, "extract", str(session))
    assert done.returncode == 0, done.stdout + done.stderr
    staged = list((workspace / "memory/_staging").glob("*.json"))
    assert staged
    sent = fake_llm.requests[0]["messages"]
    assert sent[0]["content"] == (REPO / "memcli/prompts/extract-system.md").read_text(encoding="utf-8")

    done = _memcli(installed, workspace, "consolidate")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Ship the prompts inside the wheel." in (workspace / RECORD).read_text(encoding="utf-8")
    assert f"added {RECORD}" in git(workspace, "log", "-1", "--format=%B")
    assert not list((workspace / "memory/_staging").glob("*.json"))
    done = _memcli(installed, workspace, "lint")
    assert done.returncode == 0, done.stdout + done.stderr


def test_light_install_stages_remember_calls_and_waits_for_a_model(light: Path, workspace: Path,
                                                                   tmp_path: Path) -> None:
    """The install the README offers agents: hooks install says capture waits for a model; a
    session end still stages the session's `memcli_remember` call (no model, no litellm), and
    `memcli status` shows the state without failing."""
    (workspace / "memcli.toml").write_text("[extract]\nidle_minutes = 30\n", encoding="utf-8")  # no model
    done = _memcli(light, workspace, "hooks", "install", "--agent", "claude-code")
    assert done.returncode == 0, done.stdout + done.stderr
    assert ('capture: waiting for a model: set memory.extract_model (or install and wire a coding agent '
            'memcli can run) and pip install "memcli[llm]" (memcli_remember calls are staged meanwhile)'
            ) in done.stdout.splitlines()
    remember = {"kind": "decision", "text": "Ship the light install first.", "why": "most users start there"}
    transcript = write_session(tmp_path / "claude", workspace, [
        ("user", user("We ship the light install first; remember that.")),
        ("assistant", tool_use("mcp__memcli__memcli_remember", remember, "toolu_1", "msg_1")),
        ("user", tool_result("toolu_1", '{"noted": "decision"}')),
        ("assistant", assistant_text("Noted.", "msg_2")),
    ])
    payload = {"session_id": SESSION, "transcript_path": str(transcript), "cwd": str(workspace),
               "hook_event_name": "SessionEnd", "reason": "prompt_input_exit"}
    done = subprocess.run([light / "memcli", "extract", "--hook"], input=json.dumps(payload), cwd=workspace,
                          capture_output=True, text=True, env=_clean_env(), timeout=60)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    runs = Path(os.environ["MEMCLI_STATE_DIR"]) / "runs.json"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not (runs.is_file() and '"waiting"' in runs.read_text()):
        time.sleep(0.3)
    (last,) = json.loads(runs.read_text(encoding="utf-8"))["extract"]
    assert last["result"] == "waiting", last
    (staged,) = [json.loads(p.read_text(encoding="utf-8"))
                 for p in (workspace / "memory/_staging").glob("*.json")]
    assert staged["model"] == "memcli_remember"
    assert staged["items"]["decisions"][0]["decision"] == remember["text"]
    done = _memcli(light, workspace, "status")
    assert done.returncode == 0, done.stdout + done.stderr
    assert ("1 session(s) waiting for a model: set memory.extract_model (or install and wire a coding "
            'agent memcli can run) and pip install "memcli[llm]"') in done.stdout
