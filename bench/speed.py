"""Speed of the commands agents and hooks run most, on a generated workspace, beside their floors.

    python bench/speed.py [--records 10000] [--rounds 7] [--before CHECKOUT] [--skip-build]

On a workspace from bench/workspace_gen.py, with every cache warm (the record store, the context
memo, the OS page cache), each figure is the median of `--rounds` cold processes, interleaved
round by round with its baselines (load from elsewhere hits them alike):
  python -c pass           an interpreter start
  stat floor               a cold python listing and lstat-ing every record file (the least any
                           per-file freshness check does)
  read floor               a cold python reading every record file's bytes
  memcli context           the resident context, as the SessionStart hook runs it
  memcli search QUERY      one query, output piped (as an agent's shell tool reads it)
  memcli lint --paths-only the commit path, one decision file: unchanged, and just edited (as at a
                           commit: the file is appended to before each of these runs)
In one long-lived process (one SearchIndex queried again and again, as a search service holds it;
from its second refresh it watches the record folders, memcli/store/watch.py): SearchIndex.search
(freshness check included) beside rank_bm25's BM25Okapi.get_top_n over the same records, query by
query, alternated.
Cold index build: SearchIndex.refresh() into an empty store, in a fresh process (its imports counted).
With --before, every figure is taken for that checkout too (its own state folder), interleaved.
Targets at 10 000 records (issue 26): context <= 0.25 s, search <= 0.2 s, lint one file <= 0.25 s,
in-process query <= 2x rank_bm25, cold build <= 2 s.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "bench"))
import workspace_gen  # noqa: E402

QUERIES = ["sqlite backup", "deploy release", "japanese tokenizer", "webhook retry timeout", "データベース",
           "kubernetes helm", "invoice refund", "timzone calendar", "login session cookie", "設定の通知"]
FOLDERS = ("memory/decisions", "memory/requests", "memory/workflow", "knowledge")
STAT_FLOOR = ("import os,sys\nfor f in {folders!r}:\n    for e in os.scandir(os.path.join(sys.argv[1], f)):\n"
              "        e.stat(follow_symlinks=False)")
READ_FLOOR = ("import os,sys\nfor f in {folders!r}:\n    for e in os.scandir(os.path.join(sys.argv[1], f)):\n"
              "        open(e.path, 'rb').read()")
ENTRY = "from memcli.entry import main; main()"
INPROCESS = """
import json, re, statistics, sys, time
from pathlib import Path
from rank_bm25 import BM25Okapi
from memcli.search import SearchIndex
from memcli.search.rank import rank
root, db, queries, rounds = Path(sys.argv[1]), Path(sys.argv[2]), json.loads(sys.argv[3]), int(sys.argv[4])
index = SearchIndex(root, db)
index.search(queries[0])
paths = sorted(p for f in {folders!r} for p in (root / f).glob('*.md'))
texts = [p.read_text(encoding='utf-8').lower() for p in paths]
token = re.compile(r'\\w+')
bm25 = BM25Okapi([token.findall(t) for t in texts])
ours, ranking, refresh, theirs = [], [], [], []
for _ in range(rounds):
    for q in queries:
        t = time.perf_counter(); index.search(q); ours.append(time.perf_counter() - t)
        t = time.perf_counter(); rank(index, q); ranking.append(time.perf_counter() - t)
        t = time.perf_counter(); index.refresh(); refresh.append(time.perf_counter() - t)
        t = time.perf_counter(); bm25.get_top_n(token.findall(q.lower()), paths, n=10)
        theirs.append(time.perf_counter() - t)
print(json.dumps([statistics.median(x) for x in (ours, theirs, ranking, refresh)]))
"""
BUILD = """
import time
t = time.perf_counter()  # imports included: each version loads what it needs where it likes
import sys
from pathlib import Path
from memcli.search import SearchIndex
index = SearchIndex(Path(sys.argv[1]), Path(sys.argv[2]))
index.refresh(); print(time.perf_counter() - t)
"""


def timed(cmd: list[str], env: dict[str, str], cwd: Path,
          ok: tuple[int, ...] = (0, 1)) -> tuple[float, float]:
    """(wall, cpu) seconds of one process, which must exit with one of `ok`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in ok:
        sys.exit(f"{' '.join(cmd)} failed ({done.returncode}): {done.stderr.decode()[-2000:]}")
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def output(cmd: list[str], env: dict[str, str], cwd: Path) -> str:
    done = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--records", type=int, default=10_000)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--before", type=Path, metavar="CHECKOUT", help="also time another memcli checkout")
    ap.add_argument("--skip-build", action="store_true", help="leave out the cold index build")
    ap.add_argument("--build-rounds", type=int, default=3)
    args = ap.parse_args()
    py = sys.executable
    with tempfile.TemporaryDirectory(prefix="memcli-speed-") as tmp:
        root = workspace_gen.generate(Path(tmp) / "ws", args.records)
        one = sorted((root / "memory/decisions").iterdir())[0].relative_to(root).as_posix()
        checkouts = {"after": REPO, **({"before": args.before.resolve()} if args.before else {})}
        envs = {}
        for n, (name, checkout) in enumerate(checkouts.items()):
            env = {**os.environ, "MEMCLI_STATE_DIR": str(Path(tmp) / f"state{n}"),
                   "PYTHONPATH": os.pathsep.join([str(checkout), os.environ.get("PYTHONPATH", "")])}
            env.pop("GITHUB_ACTIONS", None)
            env.pop("FORCE_COLOR", None)
            env.pop("PYTHONDONTWRITEBYTECODE", None)  # as an install runs: its bytecode cached
            envs[name] = env
        commands: dict[str, tuple[list[str], dict[str, str]]] = {
            "python -c pass": ([py, "-c", "pass"], envs["after"]),
            "stat floor": ([py, "-c", STAT_FLOOR.format(folders=FOLDERS), str(root)], envs["after"]),
            "read floor": ([py, "-c", READ_FLOOR.format(folders=FOLDERS), str(root)], envs["after"]),
        }
        for name, env in envs.items():
            commands[f"memcli context ({name})"] = ([py, "-c", ENTRY, "context"], env)
            commands[f"memcli search ({name})"] = ([py, "-c", ENTRY, "search", "QUERY"], env)
            lint = [py, "-c", ENTRY, "lint", "--paths-only", one]
            commands[f"memcli lint --paths-only ONE ({name})"] = (lint, env)
        lint_one = [py, "-c", ENTRY, "lint", "--paths-only", one]
        edits = {f"  the same, ONE just edited ({name})": (lint_one, env) for name, env in envs.items()}
        for cmd, env in commands.values():  # warm: the stores, caches and memo; the page cache
            for query in QUERIES[:2]:
                timed([query if c == "QUERY" else c for c in cmd], env, root)
        times: dict[str, list[tuple[float, float]]] = {label: [] for label in commands}
        for i in range(args.rounds):  # nothing changes
            for label, (cmd, env) in commands.items():
                query = QUERIES[i % len(QUERIES)]
                times[label].append(timed([query if c == "QUERY" else c for c in cmd], env, root))
        edited = root / one
        for i in range(args.rounds):  # then the commit path on a file changed just before, as at a commit
            for label, (cmd, env) in edits.items():
                edited.write_text(edited.read_text(encoding="utf-8") + f"\nEdited {i}.\n", encoding="utf-8")
                times.setdefault(label, []).append(timed(cmd, env, root))
        inprocess = {}
        for _ in range(2):  # alternated between checkouts
            for name, env in envs.items():
                db = Path(env["MEMCLI_STATE_DIR"]) / f"inprocess-{name}.sqlite"
                got = json.loads(output([py, "-c", INPROCESS.format(folders=FOLDERS), str(root), str(db),
                                         json.dumps(QUERIES), str(max(1, args.rounds // 2))], env, root))
                inprocess.setdefault(name, []).append(got)
        builds: dict[str, list[float]] = {name: [] for name in envs}
        for i in range(0 if args.skip_build else args.build_rounds):
            for name, env in envs.items():
                db = Path(tmp) / f"build-{name}-{i}.sqlite"
                builds[name].append(float(output([py, "-c", BUILD, str(root), str(db)], env, root)))
                db.unlink()
        report(args, times, inprocess, builds)


def report(args: argparse.Namespace, times: dict[str, list[tuple[float, float]]],
           inprocess: dict[str, list[list[float]]], builds: dict[str, list[float]]) -> None:
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"{args.records} records (bench/workspace_gen.py), median of {args.rounds} interleaved cold"
          f" processes, {os.cpu_count()} CPUs, load average {load}")
    base = statistics.median(w for w, _ in times["python -c pass"])
    print(f"  {'':<42} {'wall':>9} {'x pass':>7} {'cpu':>9}")
    for label, got in times.items():
        wall, cpu = statistics.median(w for w, _ in got), statistics.median(c for _, c in got)
        print(f"  {label:<42} {wall * 1000:6.0f} ms {wall / base:6.1f}x {cpu * 1000:6.0f} ms")
    for name, rows in inprocess.items():
        ours, theirs, ranking, refresh = (statistics.median(r[i] for r in rows) for i in range(4))
        print(f"  in-process SearchIndex.search ({name}): p50 {ours * 1000:.1f} ms = freshness check"
              f" {refresh * 1000:.1f} + ranking {ranking * 1000:.1f}; rank_bm25 get_top_n p50"
              f" {theirs * 1000:.1f} ms: {ours / theirs:.2f}x rank_bm25"
              f" (ranking alone {ranking / theirs:.2f}x)")
    for name, got in builds.items():
        if got:
            print(f"  cold index build ({name}): median {statistics.median(got):.2f} s"
                  f" (runs: {', '.join(f'{g:.2f}' for g in got)})")
    print("  targets at 10 000 records: context <= 250 ms, search <= 200 ms, lint one file <= 250 ms,"
          " in-process <= 2x rank_bm25, cold build <= 2 s")


if __name__ == "__main__":
    main()
