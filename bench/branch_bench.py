"""Benchmark routing staging by branch (memcli.consolidate.branches.route), side by side with reading
the same staging files (inputs.load_staging, what every consolidation and `memcli status` did before).

Usage: python bench/branch_bench.py [--branches 20] [--items 10] [--runs 7]

A repository with B branches made from main, each with a commit of its own and I staging files, a
third of the branches merged into main, a third deleted unmerged; run on main. Prints the median
wall time of load_staging alone and of load_staging + route (cold: no `branches.json` yet, and warm),
and the git processes route starts per branch.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.update({"GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "b@x.invalid",
                   "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "b@x.invalid"})

from memcli import git as memcli_git  # noqa: E402
from memcli.consolidate import branches  # noqa: E402
from memcli.consolidate.inputs import load_staging  # noqa: E402
from memcli.staging import Branch, StagingFile  # noqa: E402
from memcli.workspace import Workspace  # noqa: E402


def sh(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True).stdout.strip()


def build(root: Path, count: int, items: int) -> None:
    (root / "memory").mkdir(parents=True)
    (root / "memcli.toml").write_text("", encoding="utf-8")
    (root / ".gitignore").write_text("/memory/_staging/\n", encoding="utf-8")
    sh(root, "init", "-q", "-b", "main")
    sh(root, "add", "-A")
    sh(root, "commit", "-q", "-m", "initial")
    staging = root / "memory" / "_staging"
    staging.mkdir()
    for b in range(count):
        name = f"feature-{b}"
        sh(root, "switch", "-q", "-c", name, "main")
        (root / f"f{b}.txt").write_text(f"{b}\n", encoding="utf-8")
        sh(root, "add", "-A")
        sh(root, "commit", "-q", "-m", name)
        tip, forked = sh(root, "rev-parse", "HEAD"), sh(root, "rev-parse", "main")
        branch = Branch(name=name, commit=tip, forked_at=forked)
        for i in range(items):
            sid = f"s-{b}-{i}"
            data = StagingFile(id=sid, agent="claude-code", source={"session_id": sid, "range": [0, 3]},
                               model="m", prompt_version="p", created_at=dt.datetime.now(dt.UTC),
                               items={"decisions": [{"title": f"D {sid}", "decision": f"We chose {sid}"}]},
                               branch=branch)
            (staging / f"{sid}.json").write_text(data.model_dump_json(), encoding="utf-8")
    sh(root, "switch", "-q", "main")
    for b in range(count):
        if b % 3 == 0:
            sh(root, "merge", "-q", "--no-ff", "-m", f"merge {b}", f"feature-{b}")
        elif b % 3 == 1:
            sh(root, "branch", "-q", "-D", f"feature-{b}")


def median(fn, runs: int, before=None) -> float:
    times = []
    for _ in range(runs):
        if before:
            before()
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--branches", type=int, default=20)
    parser.add_argument("--items", type=int, default=10)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "repo"
        os.environ["MEMCLI_STATE_DIR"] = str(Path(tmp) / "state")
        build(root, args.branches, args.items)
        ws = Workspace.open(root)
        seen = ws.clone_state_dir / branches.SEEN_FILE

        def forget() -> None:
            seen.unlink(missing_ok=True)

        load = median(lambda: load_staging(ws), args.runs)
        cold = median(lambda: branches.route(ws, load_staging(ws).entries), args.runs, forget)
        warm = median(lambda: branches.route(ws, load_staging(ws).entries), args.runs)
        calls = 0
        real = memcli_git.run

        def counting(*a, **k):
            nonlocal calls
            calls += 1
            return real(*a, **k)

        memcli_git.run = counting
        try:
            routing = branches.route(ws, load_staging(ws).entries)
        finally:
            memcli_git.run = real
        files = args.branches * args.items
        states = {s: sum(1 for g in routing.groups if g.state == s) for s in ("merged", "waiting", "gone")}
        print(f"{args.branches} branches x {args.items} staging files ({files} files), on main: {states}")
        print(f"  load_staging alone          {load * 1000:8.1f} ms")
        print(f"  load_staging + route, cold  {cold * 1000:8.1f} ms  ({cold / load:.1f}x)")
        print(f"  load_staging + route, warm  {warm * 1000:8.1f} ms  ({warm / load:.1f}x)")
        print(f"  git processes per route     {calls} ({calls / args.branches:.1f} per branch)")


if __name__ == "__main__":
    main()
