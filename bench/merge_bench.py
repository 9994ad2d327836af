"""Benchmark the record merge driver, side by side with git's own text merge.

Usage: python bench/merge_bench.py [--records 1000] [--runs 9]

1. Per file: the median wall time of a cold `python -m memcli merge-driver O A B PATH` (what git
   runs once per file both branches changed), next to a cold `python -c pass` (the floor of any
   Python driver) and `git merge-file` on the same three files (git's text merge, no Python).
2. Per merge: two branches that each touched the same N records the way two consolidations do
   (each adds its own Source, bumps `updated_at`, edits a different line of the body), merged once
   with the driver registered by `memcli init` and once with git's default text merge: wall time and
   the number of files left in conflict.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ENV = {**os.environ, "PYTHONPATH": str(ROOT), "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "b@x.invalid",
       "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "b@x.invalid"}


def record(i: int, sources: list[str], updated: str, first: str, last: str) -> str:
    lines = ["---", "created_at: 2026-04-01T09:00:00+09:00", f"updated_at: {updated}", "status: resolved",
             "sources:"]
    for sid in sources:
        lines += [f"  - session_id: {sid}", "    range: [0, 12]"]
    body = [first, "", f"Decision {i}: keep the queue in SQLite; 決定 {i}.", "",
            "Why: one file to back up.", "", last]
    return "\n".join([*lines, "---", *body]) + "\n"


def timed(args: list[str], cwd: Path, runs: int, setup=None) -> float:
    times = []
    for _ in range(runs):
        if setup:
            setup()
        start = time.perf_counter()
        subprocess.run(args, cwd=cwd, env=ENV, capture_output=True, check=False)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def per_file(tmp: Path, runs: int) -> None:
    base = record(1, ["s0"], "2026-04-01T09:00:00+09:00", "First line.", "Last line.")
    ours = record(1, ["s0", "a"], "2026-04-02T09:00:00+09:00", "First line, ours.", "Last line.")
    theirs = record(1, ["s0", "b"], "2026-04-03T09:00:00+09:00", "First line.", "Last line, theirs.")
    for name, text in (("o", base), ("b", theirs)):
        (tmp / name).write_text(text, encoding="utf-8")

    def reset() -> None:
        (tmp / "a").write_text(ours, encoding="utf-8")

    driver = timed([sys.executable, "-m", "memcli", "merge-driver", "o", "a", "b", "memory/decisions/x.md"],
                   tmp, runs, reset)
    floor = timed([sys.executable, "-c", "pass"], tmp, runs)
    text = timed(["git", "merge-file", "-p", "a", "o", "b"], tmp, runs, reset)
    print(f"per file (median of {runs} cold runs):")
    print(f"  memcli merge-driver  {driver * 1000:7.1f} ms   (clean field merge; plain git: a conflict)")
    print(f"  python -c pass       {floor * 1000:7.1f} ms   (floor of any Python driver; "
          f"driver = floor + {(driver - floor) * 1000:.1f} ms)")
    print(f"  git merge-file       {text * 1000:7.1f} ms   (git's text merge)")


def git(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=root, env=ENV, capture_output=True, text=True, check=False)


def branches(root: Path, n: int, driver: bool) -> None:
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    if driver:
        subprocess.run([sys.executable, "-m", "memcli", "init"], cwd=root, env=ENV, capture_output=True,
                       check=True)
        # this interpreter, not whatever `memcli` PATH finds first (a pyenv shim adds its own start-up)
        git(root, "config", "merge.memcli.driver", f"{sys.executable} -m memcli merge-driver %O %A %B %P")
    folder = root / "memory" / "decisions"
    folder.mkdir(parents=True, exist_ok=True)

    def write(tag: str, first: str, last: str, updated: str) -> None:
        for i in range(n):
            sources = ["s0"] + ([f"{tag}-{i}"] if tag else [])
            (folder / f"d{i:04d}.md").write_text(record(i, sources, updated, first, last), encoding="utf-8")

    write("", "First line.", "Last line.", "2026-04-01T09:00:00+09:00")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    git(root, "switch", "-q", "-c", "a")
    write("a", "First line, ours.", "Last line.", "2026-04-02T09:00:00+09:00")
    git(root, "commit", "-q", "-am", "a")
    git(root, "switch", "-q", "-c", "b", "main")
    write("b", "First line.", "Last line, theirs.", "2026-04-03T09:00:00+09:00")
    git(root, "commit", "-q", "-am", "b")
    git(root, "switch", "-q", "a")


def per_merge(tmp: Path, n: int) -> None:
    print(f"\nmerge of two branches that each touched {n} records:")
    for label, driver in (("memcli driver", True), ("git text merge", False)):
        root = tmp / label.replace(" ", "-")
        branches(root, n, driver)
        start = time.perf_counter()
        git(root, "merge", "--no-edit", "b")
        wall = time.perf_counter() - start
        left = [p for p in git(root, "diff", "--name-only", "--diff-filter=U").stdout.splitlines() if p]
        files = (root / "memory/decisions").glob("*.md")
        markers = sum("<<<<<<<" in p.read_text(encoding="utf-8") for p in files)
        print(f"  {label:15} {wall:8.2f} s   {len(left):5d} files in conflict, {markers:5d} with markers "
              f"({wall / n * 1000:.1f} ms per record)")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--records", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=9)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        per_file(Path(tmp), args.runs)
        per_merge(Path(tmp), args.records)


if __name__ == "__main__":
    main()
