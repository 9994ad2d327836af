"""What checking code anchors at use costs `memcli context` and `memcli search`.

Two workspaces in one git repository, identical except that in one every record names two code
anchors (a path and a path with a symbol; a tenth of them stale: a renamed file, a moved symbol).
Three columns: the workspace without anchors; the anchored one with the check switched off (in this
bench only, by replacing `AnchorChecker.check_many` in the child process: what reading the longer
frontmatter costs); the anchored one as shipped. The check's own cost is the last two side by side.
1 000 records, half of them model-invoked knowledge (all shown by `context` under a large budget).
Each command runs as its own process (as an agent's hook or a user runs it) with warm caches; the
figures are medians of CPU seconds (user + sys of the child: the machine is shared, wall time
includes other processes' load) and wall seconds, with the ratio anchors / no anchors.
Target (issue 17): the check adds at most 20% (check / unchecked, CPU).

    python bench/anchors_bench.py [--records 1000] [--runs 7]
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
# The bench's own switch for the unchecked column: no such switch exists in memcli itself.
OFF = ("import sys, memcli.anchors as a; a.AnchorChecker.check_many = lambda self, g: [[] for _ in g]; "
       "from memcli.cli import main; main(sys.argv[1:])")


def child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


def record(i: int, anchors: bool) -> tuple[str, str]:
    code = f"src/mod{i % 50}.py"
    extra = ""
    if anchors:
        stale = i % 10 == 0
        path = f"src/old{i % 50}.py" if stale else code
        symbol = f"gone_{i}" if i % 10 == 5 else f"func_{i % 50}"
        extra = f"anchors:\n  - {path}\n  - {{path: {code}, symbol: {symbol}}}\n"
    if i % 2:
        return (f"memory/decisions/decision-{i}.md",
                f"---\ncreated_at: {NOW}\nupdated_at: {NOW}\nstatus: resolved\nsources:\n"
                f"  - session_id: s{i}\n    range: [0, 3]\n{extra}---\n"
                f"Decision {i}: the job runner for module {i % 50} retries with backoff.\n")
    return (f"knowledge/howto-{i}.md",
            f"---\ncreated_at: {NOW}\nupdated_at: {NOW}\nkind: howto\ndescription: How module {i % 50} "
            f"job runner case {i} works\nmodel_invocation: true\nuser_invocable: true\nlast_sources: []\n"
            f"{extra}---\nStart the job runner of module {i % 50} with func_{i % 50}().\n")


def build(top: Path, records: int) -> tuple[Path, Path]:
    for m in range(50):
        (top / "src").mkdir(parents=True, exist_ok=True)
        (top / "src" / f"old{m}.py").write_text(f"def func_{m}():\n    pass\n" * 3)
        (top / "src" / f"mod{m}.py").write_text(f"def func_{m}():\n    pass\n" * 3)
    out = []
    for name, anchors in (("plain", False), ("anchored", True)):
        ws = top / name
        (ws / "memory/decisions").mkdir(parents=True)
        (ws / "knowledge").mkdir()
        for i in range(records):
            rel, text = record(i, anchors)
            (ws / rel).write_text(text, encoding="utf-8")
        out.append(ws)
    git(top, "init", "-q", "-b", "main")
    git(top, "add", "-A")
    git(top, "-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "code and memory")
    for m in range(50):  # old{m}.py → gone{m}.py: the stale anchors name renamed files
        git(top, "mv", f"src/old{m}.py", f"src/gone{m}.py")
    git(top, "-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "rename")
    return out[0], out[1]


def timed(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    before, start = child_cpu(), time.perf_counter()
    subprocess.run(argv, env=env, check=True, stdout=subprocess.DEVNULL)
    return child_cpu() - before, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        plain, anchored = build(Path(tmp) / "repo", args.records)
        commands = {
            "context": ["context", "--budget", "200000", "--json"],
            "search": ["search", "job runner backoff", "-n", "10", "--json"],
        }
        print(f"{args.records} records, median of {args.runs} runs (CPU s / wall s)")
        print(f"{'command':<9} {'no anchors':>17} {'anchors, unchecked':>19} {'anchors, checked':>17} "
              f"{'check adds (CPU)':>17}")
        for name, rest in commands.items():
            figures = []
            columns = (("plain", plain, True), ("off", anchored, False), ("on", anchored, True))
            for label, ws, check in columns:
                env = {**os.environ, "MEMCLI_STATE_DIR": str(Path(tmp) / f"state-{label}")}
                cli = [*rest, "-w", str(ws)]
                argv = [sys.executable, "-m", "memcli", *cli] if check else [sys.executable, "-c", OFF, *cli]
                timed(argv, env)  # warm the index, caches and layout memo
                runs = [timed(argv, env) for _ in range(args.runs)]
                figures.append(tuple(statistics.median(r[k] for r in runs) for k in (0, 1)))
            cells = " ".join(f"{c:>8.3f} / {w:>6.3f}" for c, w in figures)
            print(f"{name:<9} {cells} {100 * (figures[2][0] / figures[1][0] - 1):>+16.0f}%")

if __name__ == "__main__":
    main()
