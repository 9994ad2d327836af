"""`memcli eval` speed: 500 sessions with a git history of the memory, beside `memcli sessions`.

    python bench/eval_bench.py                  # 500 sessions, 3 interleaved rounds
    python bench/eval_bench.py --sessions 1000 --tool-kb 80 --runs 5

The history is tests/support/eval_history.py's (planted repetitions in English and Japanese, each
session padded with `--tool-kb` of tool output), written as memcli JSONL files. The workspace is a
git repository whose memory grows over the same months: `--records` generated records
(bench/workspace_gen.py) committed in `--commits` commits dated between the sessions, and from
the tenth commit on, a request record holding each planted instruction (so the coverage, context
and search paths all run).

Both commands run as a user runs them (a fresh process, a fresh state folder each time), in
interleaved rounds, and the medians are printed side by side:
  baseline  memcli sessions --path SESSIONS --json     (reads and scans the same files)
  eval      memcli eval --path SESSIONS -w WS --json
The target is eval ≤ 10 s for 500 sessions (issue 31).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))

from support.eval_history import FAMILIES, generate  # noqa: E402
from workspace_gen import generate as generate_records  # noqa: E402

GIT = {"GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@memcli.invalid", "GIT_COMMITTER_NAME": "bench",
       "GIT_COMMITTER_EMAIL": "bench@memcli.invalid", "GIT_CONFIG_NOSYSTEM": "1"}


def git(root: Path, *args: str, when: str | None = None) -> None:
    env = {**os.environ, **GIT}
    if when:
        env.update(GIT_AUTHOR_DATE=when, GIT_COMMITTER_DATE=when)
    subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)


def build(folder: Path, sessions: int, tool_kb: int, records: int, commits: int,
          seed: int) -> tuple[Path, Path]:
    history = generate(seed, sessions=sessions, repeated=len(FAMILIES), tool_chars=tool_kb * 1024)
    transcripts = folder / "sessions"
    history.write(transcripts)
    pool = folder / "pool"
    generate_records(pool, records)
    files = sorted(p.relative_to(pool).as_posix() for p in pool.rglob("*.md"))
    ws = folder / "ws"
    (ws / "memory").mkdir(parents=True)
    (ws / "memcli.toml").write_text("", encoding="utf-8")
    git(ws, "init", "-q", "-b", "main")
    times = [line["timestamp"] for _, lines in history.sessions for line in lines[:1]]
    labels = sorted(history.labels())
    rng = random.Random(seed)
    for c in range(commits):
        share = files[c * len(files) // commits:(c + 1) * len(files) // commits]
        for rel in share:
            (ws / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(pool / rel, ws / rel)
        if c >= 10 and c - 10 < len(labels):  # from then on, one planted instruction per commit is filed
            family, _, value = labels[c - 10].partition(":")
            text = FAMILIES[family][1][0].format(v=value, j=value)
            rel = f"memory/requests/{family}-{value or 'rule'}".lower() + ".md"
            (ws / rel).parent.mkdir(parents=True, exist_ok=True)
            source = f"  - session_id: bench-{rng.random():.6f}\n    range: [0, 0]\n"
            (ws / rel).write_text("---\ncreated_at: 2026-01-01T00:00:00Z\nupdated_at: 2026-01-01T00:00:00Z\n"
                                  f"sources:\n{source}---\n{text}\n", encoding="utf-8")
        git(ws, "add", "-A")
        when = times[min(len(times) - 1, (c + 1) * len(times) // (commits + 1))]
        git(ws, "commit", "-q", "--allow-empty", "-m", f"memory {c}", when=when)
    return transcripts, ws


def timed(argv: list[str]) -> tuple[float, bytes]:
    with tempfile.TemporaryDirectory() as state:
        env = {**os.environ, "MEMCLI_STATE_DIR": state}
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "memcli", *argv], env=env, capture_output=True)
        took = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"memcli {' '.join(argv)} failed ({done.returncode}): {done.stderr.decode()[-500:]}")
    return took, done.stdout


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=500)
    parser.add_argument("--tool-kb", type=int, default=40)
    parser.add_argument("--records", type=int, default=300)
    parser.add_argument("--commits", type=int, default=50)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        transcripts, ws = build(Path(tmp), args.sessions, args.tool_kb, args.records, args.commits, args.seed)
        size = sum(p.stat().st_size for p in transcripts.iterdir()) / 1e6
        print(f"{args.sessions} sessions ({size:.0f} MB), {args.records} records over {args.commits} "
              "commits; "
              f"medians of {args.runs} interleaved rounds, each a fresh process and state folder\n")
        base, ours = [], []
        for _ in range(args.runs):
            base.append(timed(["sessions", "--path", str(transcripts), "--json"])[0])
            took, out = timed(["eval", "--path", str(transcripts), "-w", str(ws), "--json"])
            ours.append(took)
        doc = json.loads(out)
        b, e = statistics.median(base), statistics.median(ours)
        print(f"{'command':<40} {'median s':>9} {'x baseline':>11}")
        print(f"{'memcli sessions --path (baseline)':<40} {b:9.2f} {1:11.2f}")
        print(f"{'memcli eval --path':<40} {e:9.2f} {e / b:11.2f}")
        s = doc["summary"]
        print(f"\neval found {s['repeated']} repetitions ({s['repeats']} repeats): {s['covered_at_time']} "
              f"covered at the time, {s['reached']} reached, {s['covered_now']} covered now; "
              f"{doc['directives']} directives")
        print(f"target ≤ 10 s for 500 sessions: {'met' if e <= 10 * args.sessions / 500 else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
