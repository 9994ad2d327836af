"""How long an agent waits for memcli's hooks, side by side with the floor, in one run.

Usage: python bench/hooks_bench.py [--runs 15]

Each row starts a fresh process, as the agent does, and reports the median and the fastest of
`--runs` wall times:
  floor: python            `python -c pass` (the interpreter's start-up alone)
  extract --hook (lean)    the `memcli` executable's entry point: reads the payload, starts the
                           detached worker, exits (what the installed hook runs)
  extract --hook (Typer)   the same through the full CLI (`python -m memcli extract --hook`), i.e.
                           without the lean path
  session-start (claude)   `memcli hooks session-start` on the bundled example workspace
  memcli context           the same context through `memcli context`
The payload names a transcript that does not exist in a folder that is no workspace, so the
detached workers exit at once and nothing is extracted.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
ENTRY = [sys.executable, "-c", "from memcli.entry import main; main()"]


def _time(cmd: list[str], stdin: bytes, cwd: Path, runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(cmd, input=stdin, cwd=cwd, capture_output=True, check=True)
        times.append(time.perf_counter() - start)
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    os.environ["PYTHONPATH"] = str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")
    example = REPO / "examples" / "workspace"
    with tempfile.TemporaryDirectory() as tmp:
        where = Path(tmp)
        os.environ["MEMCLI_STATE_DIR"] = str(where / "state")
        hook = json.dumps({"session_id": "bench", "transcript_path": str(where / "none.jsonl"),
                           "cwd": str(where), "hook_event_name": "SessionEnd"}).encode()
        start = json.dumps({"cwd": str(example), "hook_event_name": "SessionStart"}).encode()
        rows = [
            ("floor: python", [sys.executable, "-c", "pass"], b"", where),
            ("extract --hook (lean)", [*ENTRY, "extract", "--hook"], hook, where),
            ("extract --hook (Typer)", [sys.executable, "-m", "memcli", "extract", "--hook"], hook, where),
            ("session-start (claude)", [*ENTRY, "hooks", "session-start", "--agent", "claude-code"],
             start, where),
            ("memcli context", [*ENTRY, "context", "-w", str(example)], b"", where),
        ]
        _time(rows[3][1], start, where, 1)  # warm the context caches of the state folder
        print(f"{'step':<26} {'median s':>9} {'min s':>7} {'x floor':>8}")
        floor = None
        for name, cmd, stdin, cwd in rows:
            times = _time(cmd, stdin, cwd, args.runs)
            median = statistics.median(times)
            floor = floor or median
            print(f"{name:<26} {median:>9.3f} {min(times):>7.3f} {median / floor:>8.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
