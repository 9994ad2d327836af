"""Benchmark `memcli gc-report` on a generated 10 000-record workspace, side by side with the floor.

Usage: python bench/gc_bench.py [--records 10000] [--runs 3] [--no-git]

The workspace is lint_bench's generator (same record mix) plus planted GC material: 50 near-duplicate
knowledge pairs, 200 stale records, and (unless --no-git) a git repository whose history deleted and
renamed files that records still name, so every check runs, code drift included.
Each figure is the median wall time and CPU time (user + system, git children included) of several
cold processes, and the peak RSS (ru_maxrss) each one reports about itself; on a shared machine the
CPU column is the steadier one:
  floor             a cold python that reads every record file's bytes (the least any report must do)
  lint              `memcli lint` over the whole workspace (gc-report runs it for the bloat warnings)
  gc-report, warm   `memcli gc-report --format json` after one unmeasured run: the state dir holds
                    the Linter's cache and gc-report's per-record facts (the usual case: records
                    change a few at a time between reports)
  gc-report, cold   the same with an empty state dir for every run (a first report, or after a
                    memcli upgrade): every record is read and parsed
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from lint_bench import _FLOOR, generate  # noqa: E402  (one generator for every benchmark)

_CHILD = """
import resource, runpy, sys
sys.argv = sys.argv[1:]
try:
    if sys.argv[0] == "floor":
        code, sys.argv = sys.argv[1], ["floor", sys.argv[2]]  # the floor script reads sys.argv[1]
        exec(code, {"__name__": "__floor__"})
    else:
        from memcli.cli import app
        try:
            app(args=sys.argv, standalone_mode=False)
        except SystemExit:
            pass
finally:
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime
    sys.stderr.write("PEAK_KB=%d CPU_S=%.3f\\n" % (me.ru_maxrss, cpu))
"""


def plant(root: Path, paths: list[str], rng: random.Random) -> None:
    """Near-duplicates (copy a knowledge body with one word changed) and stale records."""
    knowledge = [p for p in paths if p.startswith("knowledge/")]
    for i, rel in enumerate(rng.sample(knowledge, 100)[:50]):
        text = (root / rel).read_text(encoding="utf-8")
        head, body = text.rsplit("---\n", 1)
        words = body.split(" ")
        words[len(words) // 2] = "changed"
        slug = f"near-copy-{i:02d}"
        (root / f"knowledge/{slug}.md").write_text(head + "---\n" + " ".join(words), encoding="utf-8")
    for rel in rng.sample([p for p in paths if p.startswith("memory/requests/")], 200):
        full = root / rel
        text = full.read_text(encoding="utf-8")
        full.write_text(text.replace("updated_at: 2026-04-27", "updated_at: 2025-01-02", 1), encoding="utf-8")


def with_git(root: Path, paths: list[str], rng: random.Random) -> None:
    """Code files named by records; then history deletes 20 and renames 20 of them."""
    src = root / "src"
    src.mkdir()
    names = [f"src/module_{i:03d}.py" for i in range(200)]
    for name in names:
        (root / name).write_text(f"# {name}\n")
    decisions = [p for p in paths if p.startswith("memory/decisions/")]
    for rel, name in zip(rng.sample(decisions, 200), names, strict=True):
        full = root / rel
        full.write_text(full.read_text(encoding="utf-8") + f"\nCode: `{name}`.\n", encoding="utf-8")
    env = {**os.environ, "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@invalid",
           "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@invalid"}

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=root, env=env, check=True, stdout=subprocess.DEVNULL)

    git("init", "-q")
    git("add", "-A")
    git("commit", "-q", "-m", "records and code")
    git("rm", "-q", *names[:20])
    for name in names[20:40]:
        git("mv", name, name.replace("module_", "renamed_"))
    git("commit", "-q", "-m", "reshape")


def measure(
    cmd: list[str], env: dict[str, str], runs: int, fresh_state: Path | None = None
) -> tuple[float, float, float, str]:
    """Median wall and CPU seconds, peak MiB and the last output; `fresh_state`: an empty state dir
    under it for every run."""
    times, cpus, peaks, out = [], [], [], ""
    for i in range(runs):
        if fresh_state is not None:
            env = {**env, "MEMCLI_STATE_DIR": str(fresh_state / f"cold-{i}")}
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
        times.append(time.perf_counter() - t0)
        peak = [line for line in proc.stderr.splitlines() if line.startswith("PEAK_KB=")]
        if not peak:
            sys.exit(f"{' '.join(cmd[:6])} failed: {proc.stderr[-2000:]}")
        fields = dict(part.split("=") for part in peak[-1].split())
        peaks.append(int(fields["PEAK_KB"]) / 1024)
        cpus.append(float(fields["CPU_S"]))
        out = proc.stdout
    return statistics.median(times), statistics.median(cpus), max(peaks), out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--records", type=int, default=10_000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--no-git", action="store_true")
    args = ap.parse_args()
    rng = random.Random(5)
    with tempfile.TemporaryDirectory(prefix="memcli-gc-bench-") as tmp:
        root = Path(tmp) / "ws"
        paths = generate(root, args.records)
        plant(root, paths, rng)
        if not args.no_git:
            with_git(root, paths, rng)
        env = {**os.environ, "MEMCLI_STATE_DIR": str(Path(tmp) / "state")}
        child = [sys.executable, "-c", _CHILD]
        floor = measure([*child, "floor", _FLOOR, str(root)], env, args.runs)
        lint = measure([*child, "lint", "--workspace", str(root), "--format", "json"], env, args.runs)
        gc_cmd = [*child, "gc-report", "--workspace", str(root), "--format", "json"]
        cold = measure(gc_cmd, env, args.runs, fresh_state=Path(tmp))
        measure(gc_cmd, env, 1)  # warm the state dir's caches
        gc = measure(gc_cmd, env, args.runs)
        if gc[3].split('"counts"')[1] != cold[3].split('"counts"')[1]:
            sys.exit("warm and cold reports differ")
        counts = json.loads(gc[3])["counts"]
        records = sum(1 for _ in root.rglob("*.md"))
        print(f"memcli gc-report benchmark: {records} records, median of {args.runs} cold processes, "
              f"{os.cpu_count()} CPUs")
        print(f"  {'':<26} {'wall':>9} {'':>12} {'CPU':>9} {'':>12} {'peak RSS':>12}")
        rows = (("floor: read every file", floor), ("memcli lint", lint),
                ("gc-report, warm caches", gc), ("gc-report, cold caches", cold))
        for label, (secs, cpu, peak, _) in rows:
            print(f"  {label:<26} {secs:7.2f} s {secs / floor[0]:6.1f}x floor "
                  f"{cpu:7.2f} s {cpu / floor[1]:6.1f}x floor {peak:8.0f} MiB")
        print("  candidates: " + ", ".join(f"{k} {v}" for k, v in counts.items()))


if __name__ == "__main__":
    main()
