"""How long an agent waits for memcli's hooks, side by side with the floor, in one run.

Usage: python bench/hooks_bench.py [--runs 15] [--baseline main]

Each row starts a fresh process, as the agent does; rows are interleaved round by round (in a new
order each round), and each reports the median and the fastest wall time and the median CPU time
(user + sys) of `--runs`:
  floor: python             `python -c pass` (the interpreter's start-up alone)
  extract --hook (lean)     the `memcli` executable's entry point: reads the payload, starts the
                            detached worker, exits (what the installed hook runs)
  extract --hook (<rev>)    the same hook of the `--baseline` revision (below)
  extract --hook (Typer)    the same through the full CLI (`memcli.cli`), i.e. without the lean path
  session-start (lean)      `memcli hooks session-start --agent claude-code` on the bundled example
                            workspace through the entry point (what the installed hook runs), the
                            memory as the last session start found it: answered from the memo
  session-start (changed)   the same, the first session after the memory changed: the memo
                            (memcli.hooks.startmemo) deleted before each run, the context built
  session-start (Typer)     the same through the full CLI: what the hook ran before the lean path
  session-start (<rev>)     the same hook of the `--baseline` revision (default main), run from a
                            `git archive` of it: before/after in one run (so is extract --hook)
  memcli context            the same context through `memcli context`
The payload (a turn end) names a transcript that does not exist in a folder that is no workspace, so the
detached workers exit at once and nothing is extracted. Target (issue 24): session start within
0.3 s of CPU.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from memcli.hooks.startmemo import MEMO_FILE as MEMO

REPO = Path(__file__).resolve().parents[1]
ENTRY = [sys.executable, "-c", "from memcli.entry import main; main()"]
TYPER = [sys.executable, "-c", "from memcli.cli import main; main()"]


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _once(cmd: list[str], stdin: bytes, cwd: Path) -> tuple[float, float]:
    cpu, start = _cpu(), time.perf_counter()
    subprocess.run(cmd, input=stdin, cwd=cwd, capture_output=True, check=True)
    return time.perf_counter() - start, _cpu() - cpu


def _archive(rev: str, dest: Path) -> tuple[str, Path] | None:
    """`memcli/` of revision `rev`, unpacked under `dest`."""
    git = ["git", "-C", str(REPO)]
    name = subprocess.run([*git, "rev-parse", "--short", rev], capture_output=True, text=True,
                          check=False).stdout.strip()
    if not name:
        return None
    dest.mkdir(parents=True)
    archive = subprocess.run([*git, "archive", rev, "memcli"], capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive.stdout, check=True)
    return name, dest


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--baseline", default="main", help="git revision to compare session start with")
    args = parser.parse_args()
    os.environ["PYTHONPATH"] = str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)  # cached, as in an installed memcli; warmed below
    example = REPO / "examples" / "workspace"
    # the capture hooks' detached workers may still be writing their state when the rounds end
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as tmp:
        where = Path(tmp)
        os.environ["MEMCLI_STATE_DIR"] = str(where / "state")
        hook = json.dumps({"session_id": "bench", "transcript_path": str(where / "none.jsonl"),
                           "cwd": str(where), "hook_event_name": "Stop"}).encode()
        start = json.dumps({"cwd": str(example), "hook_event_name": "SessionStart"}).encode()
        session_start = ["hooks", "session-start", "--agent", "claude-code"]
        changed = where / "state-changed"
        rows = [
            ("floor: python", [sys.executable, "-c", "pass"], b""),
            ("extract --hook (lean)", [*ENTRY, "extract", "--hook"], hook),
            ("extract --hook (Typer)", [*TYPER, "extract", "--hook"], hook),
            ("session-start (lean)", [*ENTRY, *session_start], start),
            ("session-start (Typer)", [*TYPER, *session_start], start),
            # the first session after the memory changed: the memo (memcli.hooks.startmemo) not used
            ("session-start (changed)", [sys.executable, "-c", (
                f"import os; os.environ['MEMCLI_STATE_DIR'] = {str(changed)!r}; from pathlib import Path; "
                f"Path({str(changed / MEMO)!r}).unlink(missing_ok=True); "
                "from memcli.entry import main; main()"),
                *session_start], start),
            ("memcli context", [*ENTRY, "context", "-w", str(example)], b""),
        ]
        base = _archive(args.baseline, where / "baseline")
        if base is not None:  # its own path first: `-c` code imports memcli from the archive
            # and its own state folder: sharing one, each version would throw the other's context
            # memo and caches away on every run, and the baseline would pay for it
            state = str(where / "state-baseline")
            code = (f"import os, sys; os.environ['MEMCLI_STATE_DIR'] = {state!r}; "
                    f"sys.path.insert(0, {str(base[1])!r}); from memcli.entry import main; main()")
            rows.insert(5, (f"session-start ({base[0]})", [sys.executable, "-c", code, *session_start],
                            start))
            rows.insert(2, (f"extract --hook ({base[0]})", [sys.executable, "-c", code, "extract", "--hook"],
                            hook))
        for _, cmd, stdin in rows:  # warm the context caches of the state folder and the bytecode
            _once(cmd, stdin, where)
        times: dict[str, list[tuple[float, float]]] = {name: [] for name, _, _ in rows}
        for n in range(args.runs):
            # A new order each round: the capture hooks' detached workers (a Typer start-up each) run
            # on into the rows after them, and would otherwise always slow the same ones.
            for name, cmd, stdin in random.Random(n).sample(rows, len(rows)):
                times[name].append(_once(cmd, stdin, where))
        print(f"load average at start: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs; "
              f"{args.runs} interleaved rounds")
        print(f"{'step':<26} {'median s':>9} {'min s':>7} {'x floor':>8} {'cpu s':>7}")
        floor = statistics.median(w for w, _ in times["floor: python"])
        for name, samples in times.items():
            wall = [w for w, _ in samples]
            median = statistics.median(wall)
            cpu = statistics.median(c for _, c in samples)
            print(f"{name:<26} {median:>9.3f} {min(wall):>7.3f} {median / floor:>8.2f} {cpu:>7.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
