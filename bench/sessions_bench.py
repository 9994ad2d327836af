"""Session reading speed: memcli's adapters vs a bare `json.loads` loop over the same lines.

    python bench/sessions_bench.py            # ~50 MB per format
    python bench/sessions_bench.py --mb 200   # the issue's 200 MB

For the largest real Claude Code and Codex transcripts in tests/fixtures/transcripts, the file is
repeated to the target size, then read (medians of --runs passes):
  baseline  for line in file: json.loads(line)
  memcli    read_session(path) and consume every entry (merging, flags, tool pairing, timestamps)
Peak memory is measured in a separate pass under tracemalloc (which slows it; not timed).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from memcli.sessions import read_session  # noqa: E402

FIX = ROOT / "tests" / "fixtures" / "transcripts"


def largest(pattern: str) -> Path:
    return max((FIX / pattern.split("/")[0]).rglob(pattern.split("/")[1]), key=lambda p: p.stat().st_size)


def build(source: Path, target_mb: float, folder: Path) -> Path:
    data = source.read_bytes()
    if not data.endswith(b"\n"):
        data += b"\n"
    copies = max(1, int(target_mb * 1024 * 1024 / len(data)))
    path = folder / source.name
    with path.open("wb") as fh:
        for _ in range(copies):
            fh.write(data)
    return path


def baseline(path: Path) -> int:
    count = 0
    with path.open("rb") as fh:
        for line in fh:
            if line.strip():
                json.loads(line)
                count += 1
    return count


def memcli_read(path: Path) -> int:
    _info, stream = read_session(path)
    return sum(1 for _ in stream)


def timed(func, path: Path, runs: int) -> tuple[float, int]:
    times, count = [], 0
    for _ in range(runs):
        start = time.perf_counter()
        count = func(path)
        times.append(time.perf_counter() - start)
    return statistics.median(times), count


def peak(func, path: Path) -> int:
    tracemalloc.start()
    try:
        func(path)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=50.0, help="size of each generated transcript")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    sources = {"claude-code": largest("claude-code/*.jsonl"), "codex": largest("codex/*.jsonl")}
    print(f"{'format':<12} {'reader':<7} {'MB':>6} {'seconds':>8} {'MB/s':>7} {'items/s':>10} {'peak MB':>8} "
          "time vs json")
    with tempfile.TemporaryDirectory() as tmp:
        for agent, source in sources.items():
            path = build(source, args.mb, Path(tmp))
            size_mb = path.stat().st_size / 1e6
            base_s, lines = timed(baseline, path, args.runs)
            ours_s, entries = timed(memcli_read, path, args.runs)
            rows = (("json", base_s, lines, baseline), ("memcli", ours_s, entries, memcli_read))
            for name, secs, items, func in rows:
                print(f"{agent:<12} {name:<7} {size_mb:6.1f} {secs:8.2f} {size_mb / secs:7.1f} "
                      f"{items / secs:10.0f} {peak(func, path) / 1e6:8.1f} {secs / base_s:.2f}x")
            path.unlink()
    print("items/s: lines for json, entries for memcli (fewer: split responses merged, bookkeeping lines "
          "ignored)")


if __name__ == "__main__":
    main()
