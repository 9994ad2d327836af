"""What code anchors cost a user of `memcli context` and `memcli search`: the same workspace with and
without anchors, stale knowledge included.

One git repository holds the code and two workspaces, identical except that in one every record names
two code anchors (a path, and a path with a symbol). A tenth of the records are stale, half of them
knowledge entries `memcli context` shows, in turn: a file renamed (git's rename history answers), a
file deleted, a symbol moved to another file (`git grep` finds where), and a symbol gone. The code
has a history of `--commits` commits (built with `git fast-import`), so the rename lookup walks a
history, not one commit.

1 000 records, half of them model-invoked knowledge (all shown by `context` under a large budget).
By default every record names its own symbol (`func_<i>`, defined in the module its record is about),
so a command checks 1 000 distinct symbols (issue 37's case); `--symbols shared` has the records of a
module share its one symbol (50 distinct symbols).
Each command runs as its own process (as an agent's hook or a user runs it) with warm caches; the
figures are medians of interleaved runs, CPU seconds (user + sys of the child: the machine is shared,
wall time includes other processes' load) and wall seconds, with what the anchors add (CPU).
Target (issues 25, 37): anchors / no anchors ≤ 1.2 (CPU).

`--also DIR` adds a column for another memcli source tree (e.g. a checkout of the commit before a
change), run against the same anchored workspace in the same interleaved rounds.

    python bench/anchors_bench.py [--records 1000] [--runs 7] [--commits 2000] [--symbols distinct|shared]
                                  [--also DIR]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

NOW = "2026-05-20T10:00:00+00:00"
MODULES = 50
STALE = ("renamed", "deleted", "moved", "gone")  # what happened to a stale record's code, in turn


def child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def git(root: Path, *args: str, data: bytes | None = None) -> None:
    subprocess.run(["git", "-c", "user.name=b", "-c", "user.email=b@b", *args], cwd=root, check=True,
                   capture_output=True, input=data)


def anchors(i: int, distinct: bool) -> str:
    """Two anchors; record i is stale when i % 20 is 0 (knowledge) or 5 (a decision)."""
    m = i % MODULES
    n = i if distinct else m
    path, symbol = f"src/mod{m}.py", f"func_{n}"
    if i % 20 in (0, 5):
        what = STALE[(i // 20) % len(STALE)]
        if what == "renamed":
            path = f"src/old{m}.py"
        elif what == "deleted":
            path = f"src/dropped{m}.py"
        elif what == "moved":
            symbol = f"moved_{n}"
        else:
            symbol = f"gone_{i}"
    return f"anchors:\n  - {path}\n  - {{path: src/mod{m}.py, symbol: {symbol}}}\n"


def record(i: int, anchored: bool, distinct: bool) -> tuple[str, str]:
    extra = anchors(i, distinct) if anchored else ""
    if i % 2:
        return (f"memory/decisions/decision-{i}.md",
                f"---\ncreated_at: {NOW}\nupdated_at: {NOW}\nstatus: resolved\nsources:\n"
                f"  - session_id: s{i}\n    range: [0, 3]\n{extra}---\n"
                f"Decision {i}: the job runner for module {i % MODULES} retries with backoff.\n")
    return (f"knowledge/howto-{i}.md",
            f"---\ncreated_at: {NOW}\nupdated_at: {NOW}\nkind: howto\ndescription: How module {i % MODULES} "
            f"job runner case {i} works\nmodel_invocation: true\nuser_invocable: true\nlast_sources: []\n"
            f"{extra}---\nStart the job runner of module {i % MODULES} with func_{i % MODULES}().\n")


def history(commits: int, records: int, distinct: bool) -> bytes:
    """A fast-import stream: `commits` commits editing src/lib/*.py, after the files the anchors name
    (module m defines func_i for each record i of it, or func_m alone; moved.py the moved symbols)."""
    out: list[bytes] = []

    def blob(text: str) -> bytes:
        data = text.encode()
        return b"data %d\n%s\n" % (len(data), data)

    def commit(n: int, changes: list[bytes]) -> None:
        out.append(b"commit refs/heads/main\ncommitter b <b@b> %d +0000\n" % (1_700_000_000 + n * 60))
        out.append(blob(f"change {n}"))
        out.extend(changes)

    def defs(name: str, m: int) -> str:
        numbers = range(m, records, MODULES) if distinct else [m]
        return "".join(f"def {name}_{n}():\n    pass\n" for n in numbers)

    first = [b"M 100644 inline src/%s\n" % name.encode() + blob(text) for name, text in
             [(f"mod{m}.py", defs("func", m) * 3) for m in range(MODULES)]
             + [(f"old{m}.py", f"def old_{m}():\n    pass\n") for m in range(MODULES)]
             + [(f"dropped{m}.py", f"def dropped_{m}():\n    pass\n") for m in range(MODULES)]
             + [("moved.py", "".join(defs("moved", m) for m in range(MODULES)))]]
    commit(0, first)
    for n in range(1, commits):
        commit(n, [b"M 100644 inline src/lib/part%d.py\n" % (n % 200) + blob(f"VALUE = {n}\n")])
    return b"".join(out)


def build(top: Path, records: int, commits: int, distinct: bool) -> tuple[Path, Path]:
    top.mkdir(parents=True)
    git(top, "init", "-q", "-b", "main")
    git(top, "fast-import", "--quiet", data=history(max(commits, 1), records, distinct))
    git(top, "checkout", "-q", "-f", "main")
    for m in range(MODULES):  # the stale anchors' code: renamed, deleted
        git(top, "mv", f"src/old{m}.py", f"src/renamed{m}.py")
        git(top, "rm", "-q", f"src/dropped{m}.py")
    git(top, "commit", "-qm", "rename and delete")
    out = []
    for name, anchored in (("plain", False), ("anchored", True)):
        ws = top / name
        (ws / "memory/decisions").mkdir(parents=True)
        (ws / "knowledge").mkdir()
        for i in range(records):
            rel, text = record(i, anchored, distinct)
            (ws / rel).write_text(text, encoding="utf-8")
        out.append(ws)
    git(top, "add", "-A")
    git(top, "commit", "-qm", "memory")
    return out[0], out[1]


def timed(argv: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float]:
    """CPU (the child and the git it runs) and wall seconds of one command. `cwd` is a neutral
    folder: `python -m` puts the current folder first on sys.path, ahead of PYTHONPATH (--also)."""
    before, start = child_cpu(), time.perf_counter()
    subprocess.run(argv, env=env, cwd=cwd, check=True, stdout=subprocess.DEVNULL)
    return child_cpu() - before, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--commits", type=int, default=2000)
    parser.add_argument("--symbols", choices=("distinct", "shared"), default="distinct",
                        help="a symbol per record (default) or per module")
    parser.add_argument("--also", type=Path, help="another memcli source tree, run on the anchored workspace")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        plain, anchored = build(Path(tmp) / "repo", args.records, args.commits,
                                args.symbols == "distinct")
        commands = {
            "context": ["context", "--budget", "200000", "--json"],
            "search": ["search", "job runner backoff", "-n", "10", "--json"],
        }
        columns = [("no anchors", plain, None), ("anchors", anchored, None)]
        if args.also:
            columns.append((f"anchors ({args.also.name[:10]})", anchored, args.also.resolve()))
        print(f"{args.records} records, a tenth stale (half of them knowledge), {args.symbols} symbols, "
              f"{args.commits} commits; "
              f"median of {args.runs} interleaved runs (CPU s / wall s)")
        print(f"{'command':<9}" + "".join(f"{name:>23}" for name, _, _ in columns)
              + "".join(f"{'x no anchors':>14}" for _ in columns[1:]))
        for name, rest in commands.items():
            rounds: list[list[tuple[float, float]]] = [[] for _ in columns]
            envs = []
            for n, (_, ws, src) in enumerate(columns):
                env = {**os.environ, "MEMCLI_STATE_DIR": str(Path(tmp) / f"state-{n}")}
                if src is not None:
                    env["PYTHONPATH"] = str(src)
                envs.append(env)
                timed([sys.executable, "-m", "memcli", *rest, "-w", str(ws)], env, Path(tmp))  # warm caches
            for _ in range(args.runs):  # interleaved: load on the shared machine hits every column alike
                for n, (_, ws, _) in enumerate(columns):
                    argv = [sys.executable, "-m", "memcli", *rest, "-w", str(ws)]
                    rounds[n].append(timed(argv, envs[n], Path(tmp)))
            figures = [tuple(statistics.median(r[k] for r in runs) for k in (0, 1)) for runs in rounds]
            cells = "".join(f"{c:>14.3f} / {w:>6.3f}" for c, w in figures)
            ratios = "".join(f"{f[0] / figures[0][0]:>13.2f}x" for f in figures[1:])
            print(f"{name:<9}{cells}{ratios}")


if __name__ == "__main__":
    main()
