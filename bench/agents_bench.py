"""How long a real agent takes from its start to its first model request, without memcli and with
it, side by side in one run (the agent pinned in tests/e2e/package.json, against the e2e suite's
scripted model server on 127.0.0.1).

Usage: python bench/agents_bench.py --agent {claude-code,codex,gemini,copilot,pi,opencode} [--runs 7]
       [--baseline CHECKOUT]
(install the agents first: npm ci --prefix tests/e2e)

Each round runs the agent once in a plain git repository (`without`) and once in a repository after
`memcli init && memcli hooks install` plus the agent's one-time trust step (`with`), interleaved, so
machine load hits both alike. The time is from just before the process is started to the arrival of
its first request for a turn in the server's log. Printed: the median and the fastest of each, and
the seconds memcli adds (median with - median without) and the ratio of the medians; then the same
seconds from each round's pair (with - without, run one after the other, so a slow spell of the
machine hits both), their median and the interval that holds its true value at 95%: an agent's own
start varies by more than memcli adds (OpenCode's by ±0.4 s), and a goal is met only where the
interval's top is within it. `--baseline` adds a third setup in the same rounds, memcli from another
checkout (e.g. a `git worktree` of the commit before a change): before and after side by side.
memcli is run from its checkout by a shim on PATH (`_memcli`), so the figures do not depend on how
it was installed. A run stops if memcli's tools are missing from a first request with memcli, or if a
memcli process other than capture's worker is still running after the agent has exited.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))  # as pytest's pythonpath: the e2e modules import support.*

from e2e.conftest import BIN, DECISION, KNOWLEDGE  # noqa: E402 - after the path
from support.agent_server import ScriptedServer, Turn  # noqa: E402

SHIM = """#!{python}
# this checkout's memcli, as its console script runs it, whatever environment the agent gives it
import sys
sys.path.insert(0, {repo!r})
sys.pycache_prefix, sys.dont_write_bytecode = {cache!r}, False
from memcli.entry import main
sys.exit(main())
"""


CHECKOUTS: dict[Path, Path] = {}  # a setup's folder -> the checkout whose memcli it runs (default REPO)


def _memcli(folder: Path) -> Path:
    """`memcli` for the agents: this checkout's, in `folder/bin`, and with its bytecode kept (in
    `folder/pycache`) as an installed package has it, whatever the caller's PYTHONPATH and
    PYTHONDONTWRITEBYTECODE. Codex starts its MCP servers in an environment of its own (no PYTHONPATH),
    so a checkout reached through PYTHONPATH alone would fail there and be measured failing."""
    script = folder / "bin" / "memcli"
    if not script.exists():
        script.parent.mkdir(parents=True, exist_ok=True)
        repo = CHECKOUTS.get(folder, REPO)
        script.write_text(SHIM.format(python=sys.executable, repo=str(repo), cache=str(folder / "pycache")),
                          encoding="utf-8")
        script.chmod(0o755)
    return script


def _env(home: Path) -> dict[str, str]:
    agents = ("ANTHROPIC_", "CLAUDE_", "GEMINI_", "GOOGLE_")  # no real credentials or settings
    env = {k: v for k, v in os.environ.items()
           if not k.upper().endswith(("_API_KEY", "_PROXY", "_TOKEN")) and not k.startswith(agents)
           and k != "PYTHONDONTWRITEBYTECODE"}
    memcli = _memcli(home.parent)
    return {**env, "HOME": str(home), "PATH": os.pathsep.join([str(memcli.parent), str(BIN), env["PATH"]]),
            "PYTHONPATH": os.pathsep.join([str(CHECKOUTS.get(home.parent, REPO)),
                                           *filter(None, [env.get("PYTHONPATH")])]),
            "PYTHONPYCACHEPREFIX": str(home.parent / "pycache"),
            "NO_PROXY": "127.0.0.1,localhost", "MEMCLI_STATE_DIR": str(home / "state"), "CI": "1",
            "MEMCLI_EXTRACT_MODEL": "none",  # the session-end capture would otherwise run real extracts
            "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@memcli.invalid",
            "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@memcli.invalid"}


def _project(base: Path, env: dict[str, str], *, memcli: bool) -> Path:
    root = base / "proj"
    root.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=root, env=env, check=True)
    if memcli:
        subprocess.run(["memcli", "init"], cwd=root, env=env, check=True, capture_output=True)
        (root / "memory" / "decisions" / "use-sqlite-wal.md").write_text(DECISION, encoding="utf-8")
        (root / "knowledge" / "restore-nightly-backup.md").write_text(KNOWLEDGE, encoding="utf-8")
    else:
        (root / "README.md").write_text("# a project\n", encoding="utf-8")
    subprocess.run(["git", "add", "-A"], cwd=root, env=env, check=True)
    subprocess.run(["git", "commit", "-q", "-m", "start"], cwd=root, env=env, check=True)
    return root


def _stop_workers(base: Path, wait: float = 10) -> None:
    """Capture workers the session-end hook started for this setup: waited for, then stopped."""
    deadline = time.monotonic() + wait
    while True:
        pids = [pid for pid, line in _processes(str(base)) if b"hooks capture" in line]
        if not pids:
            return
        if time.monotonic() > deadline:
            for pid in pids:
                os.kill(pid, 15)
            return
        time.sleep(0.2)


def _left_running(base: Path, wait: float = 3) -> list[str]:
    """memcli's processes of this setup (run through its shim, so its folder is in their command
    line) still running `wait` seconds after the agent exited, but capture's worker, the one that
    outlives a session by design (waited for by _stop_workers): a server or hook the agent left."""
    deadline = time.monotonic() + wait
    while True:
        left = [line.decode(errors="replace").strip() for _, line in _processes(str(base / "bin" / "memcli"))
                if b"hooks capture" not in line]
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.1)


def _processes(needle: str) -> list[tuple[int, bytes]]:
    """(pid, command line) of each running process whose command line holds `needle`."""
    return [(int(proc.name), line) for proc in Path("/proc").iterdir()
            if proc.name.isdigit() and needle.encode() in (line := _cmdline(proc))]


def _cmdline(proc: Path) -> bytes:
    try:
        return (proc / "cmdline").read_bytes().replace(b"\0", b" ")
    except OSError:
        return b""


@dataclass(frozen=True)
class Setup:
    """What differs between the agents: the environment, the one-time steps after the project is made
    (memcli's hooks install with `memcli`, the trust steps in both setups), the scripted server, and the
    command that starts the agent against it."""

    agent: str  # as `memcli hooks install --agent` names it
    binary: str
    env: Callable[[Path], dict[str, str]]
    prepare: Callable[[Path, Path, dict[str, str], bool], None]  # (binary, root, env, with memcli)
    server: Callable[[], ScriptedServer]
    launch: Callable[[Path, Path, dict[str, str], ScriptedServer], None]  # start the agent, wait for it


def measure(setup: Setup, base: Path, runs: int, baseline: Path | None = None
            ) -> tuple[str, dict[str, list[float]]]:
    """Each setup's times: `without`, `with`, and with `baseline` (another checkout's memcli, e.g. the
    commit before a change, measured in the same rounds) as `baseline`."""
    binary = BIN / setup.binary
    setups: dict[str, tuple[Path, dict[str, str]]] = {}
    if baseline is not None:
        CHECKOUTS[base / "baseline"] = baseline
    for name in ("without", "with", *(["baseline"] if baseline is not None else [])):
        env = setup.env(base / name / "home")
        Path(env["HOME"]).mkdir(parents=True, exist_ok=True)
        root = _project(base / name, env, memcli=name != "without")
        if name != "without":
            subprocess.run(["memcli", "hooks", "install", "--agent", setup.agent], cwd=root, env=env,
                           check=True, capture_output=True)
        setup.prepare(binary, root, env, name != "without")
        setups[name] = (root, env)
    shown = subprocess.run([str(binary), "--version"], capture_output=True, text=True)
    version = shown.stdout.strip() or shown.stderr.strip()  # Pi prints it on stderr
    version = version.splitlines()[0] if version else version  # Copilot adds a line about updates

    def once(name: str) -> float:
        root, env = setups[name]
        server = setup.server()
        server.script(Turn(text="ok"))
        with server:
            start = time.monotonic()
            setup.launch(binary, root, env, server)
        _stop_workers(base / name)
        if left := _left_running(base / name):
            raise SystemExit(f"{setup.agent} {name} memcli: left running after the agent exited: {left}")
        offered = "memcli_search" in json.dumps(server.model_requests()[0].body)
        if offered != (name != "without"):  # a failed MCP server is no measure of one that works
            state = "offered" if offered else "missing"
            raise SystemExit(f"{setup.agent} {name} memcli: memcli's tools {state} in the first request")
        return server.turn_times[0] - start

    return version, _interleave(once, list(setups), runs)


def claude_code() -> Setup:
    from e2e.test_claude_code import accept_trust_dialog, claude_env
    from support.anthropic_server import AnthropicServer

    def launch(binary: Path, root: Path, env: dict[str, str], server: ScriptedServer) -> None:
        subprocess.run([str(binary), "-p", "hi"], cwd=root, env=claude_env(env, server),
                       capture_output=True, timeout=120, check=True)

    return Setup("claude-code", "claude", _env,
                 lambda binary, root, env, _: accept_trust_dialog(Path(env["HOME"]), root),
                 AnthropicServer, launch)


def codex() -> Setup:
    """`codex exec` with the folder trusted (both setups) and, with memcli, memcli's hooks trusted:
    the one-time steps a user takes, written through Codex's own app server as in the e2e test."""
    from e2e.test_codex import KEY_VAR, codex_config, trust
    from support.responses_server import ResponsesServer

    def env_of(home: Path) -> dict[str, str]:
        env = {**_env(home), KEY_VAR: "sk-scripted"}
        env.pop("CODEX_HOME", None)
        return env

    def prepare(binary: Path, root: Path, env: dict[str, str], memcli: bool) -> None:
        if memcli:  # capture at once after Stop: no worker left waiting 30 min
            config = root / "memcli.toml"
            text = config.read_text(encoding="utf-8")
            config.write_text(text.replace("# idle_minutes = 30", "idle_minutes = 0"), encoding="utf-8")
        home = Path(env["HOME"]) / ".codex"
        home.mkdir(parents=True)
        (home / "config.toml").write_text(codex_config("http://127.0.0.1:9"), encoding="utf-8")
        trust(binary, root, env, hooks=memcli)

    def launch(binary: Path, root: Path, env: dict[str, str], server: ScriptedServer) -> None:
        config = Path(env["HOME"]) / ".codex" / "config.toml"  # keeps the trust records: only the
        text = config.read_text(encoding="utf-8")  # provider's URL changes
        config.write_text(re.sub(r'base_url = "[^"]*"', f'base_url = "{server.url}/v1"', text),
                          encoding="utf-8")
        subprocess.run([str(binary), "exec", "hi"], cwd=root, env=env, stdin=subprocess.DEVNULL,
                       capture_output=True, timeout=120, check=True)

    return Setup("codex", "codex", env_of, prepare, ResponsesServer, launch)


def gemini() -> Setup:
    """Gemini CLI headless (`gemini -p`), which waits for its MCP servers before the first request."""
    from e2e.test_gemini import gemini_env, trust_folder, user_settings
    from support.gemini_server import GeminiServer

    def prepare(binary: Path, root: Path, env: dict[str, str], memcli: bool) -> None:
        user_settings(Path(env["HOME"]))
        trust_folder(Path(env["HOME"]), root)  # Gemini asks it of every folder, memcli or not

    def launch(binary: Path, root: Path, env: dict[str, str], server: ScriptedServer) -> None:
        subprocess.run([str(binary), "-p", "hi"], cwd=root, env=gemini_env(env, server),
                       capture_output=True, timeout=120, check=True)

    return Setup("gemini", "gemini", _env, prepare, GeminiServer, launch)


def copilot() -> Setup:
    """GitHub Copilot CLI headless (`copilot -p`) through its own BYOK provider settings, offline, the
    folder trusted in both setups (Copilot asks it of every folder); it waits for its MCP servers."""
    from e2e.test_copilot import copilot_env, trust_folder
    from support.chat_completions_server import ChatCompletionsServer

    def env_of(home: Path) -> dict[str, str]:
        return {k: v for k, v in _env(home).items() if not k.startswith("COPILOT_")}

    def prepare(binary: Path, root: Path, env: dict[str, str], memcli: bool) -> None:
        trust_folder(Path(env["HOME"]), root)

    def launch(binary: Path, root: Path, env: dict[str, str], server: ScriptedServer) -> None:
        subprocess.run([str(binary), "-p", "hi"], cwd=root, env=copilot_env(env, server),
                       capture_output=True, timeout=120, check=True)

    return Setup("copilot", "copilot", env_of, prepare, ChatCompletionsServer, launch)


def pi() -> Setup:
    """Pi headless (`pi -p`) with the user's own model provider in ~/.pi/agent/models.json (rewritten
    for each run's server), where memcli's extension makes the first prompt wait for memcli's tools."""
    from e2e.test_pi import MODEL, pi_env, user_setup
    from support.anthropic_server import AnthropicServer

    def env_of(home: Path) -> dict[str, str]:
        return {k: v for k, v in _env(home).items() if not k.startswith("PI_")}

    def launch(binary: Path, root: Path, env: dict[str, str], server: ScriptedServer) -> None:
        user_setup(Path(env["HOME"]), server)
        subprocess.run([str(binary), "--model", MODEL, "-p", "hi"], cwd=root, env=pi_env(env, server),
                       capture_output=True, timeout=120, check=True)

    return Setup("pi", "pi", env_of, lambda binary, root, env, memcli: None, AnthropicServer, launch)


def opencode() -> Setup:
    """`opencode run`, its `openai` provider moved to the scripted server in the user's config (both
    setups). OpenCode asks for no trust step; it waits for its MCP servers before the first request.

    At start OpenCode installs `@opencode-ai/plugin` from npm into each config folder it loads (the
    user's, and `.opencode/` where memcli's plugin is) until it is there, and waits for that first.
    Both setups are measured as they are once it is (a user's second start on): the folders hold
    what the install leaves; npm is out of reach here, and a failing install would be measured."""
    from e2e.test_opencode import OpenCodeServer, opencode_env, user_config

    def env_of(home: Path) -> dict[str, str]:  # OpenCode's folders follow HOME, its settings stay out
        return {k: v for k, v in _env(home).items() if not k.startswith(("XDG_", "OPENCODE_"))}

    def prepare(binary: Path, root: Path, env: dict[str, str], memcli: bool) -> None:
        folders = [Path(env["HOME"]) / ".config" / "opencode", *([root / ".opencode"] if memcli else [])]
        pinned = json.loads((BIN.parents[1] / "package.json").read_text(encoding="utf-8"))["devDependencies"]
        dependency = {"@opencode-ai/plugin": pinned["opencode-ai"]}  # (OpenCode checks the name alone)
        for folder in folders:  # what OpenCode looks at before it installs again
            (folder / "node_modules").mkdir(parents=True, exist_ok=True)
            (folder / "package.json").write_text(json.dumps({"dependencies": dependency}), encoding="utf-8")
            lock = {"packages": {"": {"dependencies": dependency}}}
            (folder / "package-lock.json").write_text(json.dumps(lock), encoding="utf-8")

    def launch(binary: Path, root: Path, env: dict[str, str], server: ScriptedServer) -> None:
        user_config(Path(env["HOME"]), server)  # the provider's URL is this server's
        subprocess.run([str(binary), "run", "hi"], cwd=root, env=opencode_env(env, root, server),
                       stdin=subprocess.DEVNULL, capture_output=True, timeout=120, check=True)

    return Setup("opencode", "opencode", env_of, prepare, OpenCodeServer, launch)


def median_interval(values: list[float], level: float = 0.95) -> tuple[float, float]:
    """A distribution-free interval of the median at `level` (at least), from the order statistics:
    the k-th smallest and the k-th largest, k the largest with P(Binomial(n, 1/2) < k) <= (1 - level) / 2.
    With too few values for that level, the smallest and the largest."""
    ordered, n = sorted(values), len(values)
    k, tail = 0, 0.0
    while k < n // 2 and (tail := tail + math.comb(n, k) / 2 ** n) <= (1 - level) / 2:
        k += 1
    k = max(k, 1)
    return ordered[k - 1], ordered[n - k]


def _interleave(once: Callable[[str], float], names: list[str], runs: int) -> dict[str, list[float]]:
    for name in names:  # warm the file cache (and write memcli's bytecode); not counted
        once(name)
    times: dict[str, list[float]] = {name: [] for name in names}
    for _ in range(runs):
        for name in times:
            times[name].append(once(name))
    return times


AGENTS: dict[str, Callable[[], Setup]] = {"claude-code": claude_code, "codex": codex, "gemini": gemini,
                                          "copilot": copilot, "pi": pi, "opencode": opencode}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agent", choices=sorted(AGENTS), required=True)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--baseline", type=Path, metavar="CHECKOUT",
                        help="also measure this checkout's memcli (e.g. `git worktree add` of the commit "
                             "before a change), in the same rounds")
    args = parser.parse_args()
    setup = AGENTS[args.agent]()
    if not (BIN / setup.binary).exists() or not shutil.which("git"):
        print("the agents are not installed: npm ci --prefix tests/e2e", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as tmp:
        version, times = measure(setup, Path(tmp), args.runs, args.baseline and args.baseline.resolve())
    print(f"{args.agent} {version}: start -> first model request, {args.runs} interleaved runs")
    without = statistics.median(times["without"])
    print(f"{'':<24} {'median s':>9} {'min s':>7} {'added s':>8} {'ratio':>6} {'paired s':>9}"
          f" {'95% interval':>15}")
    for name, values in times.items():
        label = {"without": "without memcli", "with": "with memcli",
                 "baseline": f"with memcli of {args.baseline}"}[name]
        median = statistics.median(values)
        added = ""
        if name != "without":
            paired = [a - b for a, b in zip(values, times["without"], strict=True)]
            low, high = median_interval(paired)
            added = (f"{median - without:+8.2f} {median / without:6.2f} {statistics.median(paired):+9.2f}"
                     f" {low:+7.2f}..{high:+.2f}")
        print(f"{label[:24]:<24} {median:>9.2f} {min(values):>7.2f} {added}")
    print("added: median with - median without; ratio: median with / median without; paired: the median of\n"
          "each round's with - without, and the interval that holds its true value at 95% (order statistics)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
