"""How long `memcli skills sync` takes on a memory of 200 knowledge records, side by side with the
floor, in one run.

Usage: python bench/skills_bench.py [--knowledge 200] [--runs 15]

A workspace from bench/workspace_gen.py (200 knowledge records, 100 workflows and 200 other
records) is synced once for every agent memcli writes skills for (`--agent all`: Claude Code's
folder, the `.agents/skills/` the other five share, and the folders the skills kept to explicit use
go to for Codex, Copilot CLI and Pi), then each row starts a fresh process, rows
interleaved round by round in a new order each round, and reports the median and fastest wall
time and the median CPU time (user + sys) of `--runs`:
  floor: python           `python -c pass` (the interpreter's start-up alone)
  sync, unchanged (lean)  `memcli skills sync --agent all` through the `memcli` entry point, nothing
                          changed since the last sync: what runs after every consolidation
  sync, unchanged (Typer) the same through the full CLI, i.e. without the lean route
  sync, one record edited the lean route after one knowledge record's body changed (it alternates
                          between two texts): one skill per folder rewritten
  memcli context          the resident context on the same workspace, for scale
The first sync (every skill written) is timed once, before the rounds. Target (issue 29): an
unchanged sync of 200 records within 0.3 s.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from workspace_gen import generate  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
ENTRY = [sys.executable, "-c", "from memcli.entry import main; main()"]
TYPER = [sys.executable, "-c", "from memcli.cli import main; main()"]


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _once(cmd: list[str], cwd: Path, before: object = None) -> tuple[float, float]:
    if callable(before):
        before()
    cpu, start = _cpu(), time.perf_counter()
    subprocess.run(cmd, cwd=cwd, capture_output=True, check=True)
    return time.perf_counter() - start, _cpu() - cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--knowledge", type=int, default=200)
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    os.environ["PYTHONPATH"] = str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)  # cached, as in an installed memcli; warmed below
    with tempfile.TemporaryDirectory() as tmp:
        root = generate(Path(tmp) / "ws", args.knowledge * 5 // 2)  # two in five are knowledge
        os.environ["MEMCLI_STATE_DIR"] = str(Path(tmp) / "state")
        sync = ["skills", "sync", "--agent", "all"]
        first = _once([*ENTRY, *sync], root)
        record = sorted((root / "knowledge").glob("*.md"))[0]
        text = record.read_text(encoding="utf-8")
        texts = [text, text + "\nOne more line.\n"]
        turn = [0]

        def edit() -> None:
            turn[0] ^= 1
            record.write_text(texts[turn[0]], encoding="utf-8")

        rows = [
            ("floor: python", [sys.executable, "-c", "pass"], None),
            ("sync, unchanged (lean)", [*ENTRY, *sync], None),
            ("sync, unchanged (Typer)", [*TYPER, *sync], None),
            ("sync, one record edited", [*ENTRY, *sync], edit),
            ("memcli context", [*ENTRY, "context"], None),
        ]
        for _, cmd, before in rows:  # warm the bytecode and the state folder
            _once(cmd, root, before)
        times: dict[str, list[tuple[float, float]]] = {name: [] for name, _, _ in rows}
        for n in range(args.runs):
            for name, cmd, before in random.Random(n).sample(rows, len(rows)):
                if name.startswith("sync, unchanged"):
                    _once([*ENTRY, *sync], root)  # whatever ran before it, nothing changed since
                times[name].append(_once(cmd, root, before))
        skills = sum(1 for _ in root.glob(".*/skills/*/SKILL.md"))
        print(f"load average at start: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs; {args.runs} "
              f"interleaved rounds; {args.knowledge} knowledge records, {skills} SKILL.md files")
        print(f"first sync (every skill written): {first[0]:.3f} s wall, {first[1]:.3f} s cpu")
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
