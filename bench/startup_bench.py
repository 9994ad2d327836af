"""Start-up of the commit path and of the model commands, side by side with their baselines.

Usage: python bench/startup_bench.py [--records 10000] [--runs 7] [--skip-model] [--before CHECKOUT]

  commit path   `memcli lint --paths-only ONE.md` in a generated workspace (bench/lint_bench.py's
                generator) with a warm cache, median wall and CPU of cold processes:
                  the lean route (memcli.entry → memcli.lean, what the hook runs now) beside
                  the Typer route (memcli.cli, what it ran before) and a bare `python -c pass`,
                interleaved run by run, once the generated files are old enough for the cache to
                trust their stats; with --before, the same routes of another checkout too;
                then the biggest imports of the lean route (`python -X importtime`).
  model command `memcli extract` of one real transcript against the scripted model server, run on a
                pseudo-terminal: seconds to the first progress line, to the first model request,
                and in all; baselines: `import litellm` alone and `extract --dry-run` (the planning
                and redaction alone), whose sum is what a run without the background import costs
                before its first request.
"""

from __future__ import annotations

import argparse
import os
import pty
import re
import select
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(REPO / "bench"))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from lint_bench import _time, generate  # noqa: E402
from support.fake_llm import FAKE_KEY, FAKE_MODEL, FakeLLM  # noqa: E402

from memcli.store import RACY_NS  # noqa: E402

TRANSCRIPT = (REPO / "tests/fixtures/transcripts/claude-code/codemie-ai__codemie-code/-tmp-private/"
              "4c2ddfdc-b619-4525-8d03-1950fb1b0257.jsonl")
ROUTES = {"lean": "from memcli.entry import main; main()", "typer": "from memcli.cli import main; main()"}


def commit_path(records: int, runs: int, before: Path | None) -> None:
    with tempfile.TemporaryDirectory(prefix="memcli-startup-") as tmp:
        root = Path(tmp) / "ws"
        paths = generate(root, records)
        one = next(p for p in paths if p.startswith("memory/decisions/"))
        py = sys.executable
        argv = ["lint", "--paths-only", one]
        os.chdir(root)
        # Each checkout has its own state dir: the cache's fingerprint covers memcli's lint code,
        # so two versions sharing one would keep throwing each other's cache away.
        checkouts = {"": REPO, **({" (before)": before} if before else {})}
        envs = {}
        for tag, checkout in checkouts.items():
            env = {**os.environ, "MEMCLI_STATE_DIR": str(Path(tmp) / f"state{len(envs)}"),
                   "PYTHONPATH": os.pathsep.join([str(checkout), os.environ.get("PYTHONPATH", "")])}
            env.pop("GITHUB_ACTIONS", None)
            envs[tag] = env
        # The store trusts a file's stamp only once the file has been still for RACY_NS (racy
        # git): warming it right after generating would leave the newest files to be read and
        # hashed, and the store rewritten, by whichever route is timed first.
        time.sleep(RACY_NS / 1e9 + 0.5)
        commands = {"python -c pass": ([py, "-c", "pass"], envs[""])}
        for tag, env in envs.items():
            for name, code in ROUTES.items():
                commands[f"lint --paths-only ONE, {name} route{tag}"] = ([py, "-c", code, *argv], env)
        for cmd, env in commands.values():  # warm the caches: memcli's, and the OS's for each route
            _time(cmd, env, 1)
        # Whatever each version keeps in its state folder (a cache file, a store): no timed run may
        # rewrite it, or it was not warm.
        states = [Path(env["MEMCLI_STATE_DIR"]) for env in envs.values()]
        stamps = [_state_stamps(state) for state in states]
        # Interleaved, one run of each per round: load from elsewhere hits every route alike.
        times: dict[str, list[tuple[float, float]]] = {label: [] for label in commands}
        for _ in range(runs):
            for label, (cmd, env) in commands.items():
                times[label].append(_time(cmd, env, 1)[:2])
        rewritten = [_state_stamps(state) for state in states] != stamps
        print(f"commit path: {len(paths)} records, warm cache, median of {runs} cold processes "
              f"(interleaved), load average {os.getloadavg()[0]:.1f}"
              + (" -- WARNING: the timed runs rewrote a cache" if rewritten else ""))
        if before:
            print(f"  (before) = the routes of {before}")
        rows = [(label, statistics.median(w for w, _ in got), statistics.median(c for _, c in got))
                for label, got in times.items()]
        typer_wall, typer_cpu = rows[2][1], rows[2][2]
        for label, wall, cpu in rows:
            print(f"  {label:<49} {wall * 1000:7.0f} ms wall ({wall / typer_wall:4.2f}x typer)"
                  f" {cpu * 1000:7.0f} ms cpu ({cpu / typer_cpu:4.2f}x)")
        env = envs[""]
        done = subprocess.run([py, "-X", "importtime", "-c", ROUTES["lean"], *argv], env=env,
                              capture_output=True, text=True)
        top = []
        for line in done.stderr.splitlines():
            found = re.match(r"import time:\s+\d+ \|\s+(\d+) \| (\S.*)", line)  # depth 0 only
            if found:
                top.append((int(found.group(1)), found.group(2)))
        print("  lean route, top-level imports (cumulative):",
              ", ".join(f"{name} {us / 1000:.0f} ms" for us, name in sorted(top, reverse=True)[:8]))
        print("  typer imported on the lean route:", "typer" in {name for _, name in top})


def _state_stamps(state: Path) -> dict[str, int]:
    return {str(p): p.stat().st_mtime_ns for p in state.rglob("*") if p.is_file()}


def _pty_run(argv: list[str], env: dict[str, str], cwd: Path, fake: FakeLLM) -> tuple[float, float, float]:
    """(first output on the terminal, first model request, exit) in seconds after the start."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: stdout and stderr are the terminal
        os.chdir(cwd)
        os.execve(sys.executable, [sys.executable, "-c", ROUTES["lean"], *argv], env)
    start = time.perf_counter()
    first_out = first_call = None
    seen = len(fake.requests)
    while True:
        ready, _, _ = select.select([fd], [], [], 0.01)
        now = time.perf_counter() - start
        if first_call is None and len(fake.requests) > seen:
            first_call = now
        if ready:
            try:
                data = os.read(fd, 4096)
            except OSError:
                data = b""
            if not data:
                break
            if first_out is None and data.strip():
                first_out = now
    os.waitpid(pid, 0)
    end = time.perf_counter() - start
    return first_out or end, first_call or end, end


def model_command(runs: int) -> None:
    py = sys.executable
    with tempfile.TemporaryDirectory(prefix="memcli-startup-") as tmp, FakeLLM() as fake:
        root = Path(tmp) / "ws"
        shutil.copytree(REPO / "examples" / "workspace", root)
        config = f'[memory]\nextract_model = "{FAKE_MODEL}"\n[extract]\nidle_minutes = 0\n'
        (root / "memcli.toml").write_text(config, encoding="utf-8")
        env = {**os.environ, "OPENAI_API_BASE": fake.url, "OPENAI_API_KEY": FAKE_KEY, "TERM": "dumb"}
        litellm = statistics.median(_wall([py, "-c", "import litellm"], env, root) for _ in range(runs))
        dry_run = [py, "-c", ROUTES["lean"], "extract", "--dry-run", str(TRANSCRIPT)]
        dry = statistics.median(_wall(dry_run, env, root) for _ in range(runs))
        marks = []
        for i in range(runs):
            state = Path(tmp) / f"state{i}"  # a fresh ledger: every run really extracts
            run_env = {**env, "MEMCLI_STATE_DIR": str(state)}
            marks.append(_pty_run(["extract", str(TRANSCRIPT)], run_env, root, fake))
        first_out, first_call, total = (statistics.median(m[k] for m in marks) for k in range(3))
        print(f"model command: memcli extract, 1 real transcript, median of {runs}, "
              f"load average {os.getloadavg()[0]:.1f}")
        print(f"  baseline: import litellm alone {litellm:6.2f} s, extract --dry-run (planning) {dry:6.2f} s,"
              f" sum {litellm + dry:6.2f} s")
        print(f"  first progress line on the terminal   {first_out:6.2f} s")
        ratio = first_call / (litellm + dry)
        print(f"  first model request                   {first_call:6.2f} s ({ratio:4.2f}x the sum)")
        print(f"  whole run                             {total:6.2f} s")


def _wall(cmd: list[str], env: dict[str, str], cwd: Path) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, check=True)
    return time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--records", type=int, default=10_000)
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--skip-model", action="store_true")
    ap.add_argument("--before", type=Path, metavar="CHECKOUT",
                    help="also time the commit path's routes of another memcli checkout (e.g. main)")
    args = ap.parse_args()
    commit_path(args.records, args.runs, args.before.resolve() if args.before else None)
    if not args.skip_model:
        model_command(max(3, args.runs // 2))


if __name__ == "__main__":
    main()
