"""Session reading speed: memcli's adapters vs a bare `json.loads` loop over the same lines.

    python bench/sessions_bench.py            # ~50 MB per format
    python bench/sessions_bench.py --mb 200   # the issue's 200 MB

For the largest real Claude Code and Codex transcripts in tests/fixtures/transcripts, the file is
repeated to the target size, then read (medians of --runs passes):
  baseline  for line in file: json.loads(line)
  memcli    read_session(path) and consume every entry (merging, flags, tool pairing, timestamps)
Peak memory is measured in a separate pass under tracemalloc (which slows it; not timed).

Then, per format, 1% more lines are appended and the grown file is read again two ways:
  full      read_entries(info) from line 0 (what a consumer without a saved position does)
  resume    read_entries(info, resume=position) from the position saved after the first read
(the entries resumed must equal the full read's from `position.line` on: checked, exit 1 if not).

Last, `memcli extract` planning on the Claude Code transcript, peak memory under tracemalloc:
  list      the former way: every entry in a list, then chunked (baseline)
  stream    plan() with nothing extracted yet (holds the planned chunks only)
  +1%       plan() once the ledger covers the file and 1% was appended (holds the new span only)
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

from memcli.sessions import read_entries, read_session, sessions_in  # noqa: E402

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


def append_percent(source: Path, path: Path) -> None:
    """Append about 1% of the file's size, in whole lines of the source transcript."""
    lines = source.read_bytes().splitlines(keepends=True)
    target, added = path.stat().st_size // 100, 0
    with path.open("ab") as fh:
        while added < target:
            for line in lines:
                fh.write(line if line.endswith(b"\n") else line + b"\n")
                added += len(line)
                if added >= target:
                    break


def bench_resume(agent: str, source: Path, path: Path, runs: int) -> bool:
    (info,) = sessions_in(path)
    first = read_entries(info)
    for _ in first:
        pass
    position = first.position
    append_percent(source, path)

    def full(_p: Path) -> list:
        return list(read_entries(info))

    def resume(_p: Path) -> list:
        return list(read_entries(info, resume=position))

    full_s, whole = timed(full, path, runs)
    resume_s, later = timed(resume, path, runs)
    ok = later == [e for e in whole if e.index >= position.line]
    print(f"{agent:<12} +1%: full re-read {full_s:7.2f}s  resume {resume_s:7.3f}s  "
          f"({full_s / resume_s:.0f}x faster, {len(later)} of {len(whole)} entries; "
          f"{'same entries' if ok else 'MISMATCH'})")
    return ok


def bench_plan(source: Path, path: Path) -> None:
    import datetime as dt

    from memcli.config import ExtractConfig
    from memcli.extract.ledger import Ledger
    from memcli.extract.plan import plan
    from memcli.extract.prepare import chunk, prepare

    cfg, now = ExtractConfig(idle_minutes=0), dt.datetime(2100, 1, 1, tzinfo=dt.UTC)
    (info,) = sessions_in(path)

    def as_list(_p: Path) -> int:
        entries = list(read_entries(info))
        prepared = [p for p in (prepare(e, cfg.tool_output_chars) for e in entries) if p is not None]
        return len(chunk(prepared, cfg.chunk_tokens))

    with tempfile.TemporaryDirectory() as tmp:
        ledger = Ledger(Path(tmp) / "ledger.jsonl")
        size_mb = path.stat().st_size / 1e6
        base = peak(as_list, path)
        todo: list = []
        stream = peak(lambda _p: todo.append(plan([info], ledger, cfg, now)), path)
        for w in todo[0].work:
            ledger.record(w.key, info.session_id, w.first_entry, w.last_entry, *w.chunk.range, "v", "m", "s")
        chunks = len(todo.pop().work)
        append_percent(source, path)
        later = peak(lambda _p: todo.append(plan([info], ledger, cfg, now)), path)
        print(f"\nextract planning, {size_mb:.0f} MB Claude Code transcript ({chunks} chunks), peak MB: "
              f"list {base / 1e6:.1f} | stream {stream / 1e6:.1f} ({base / stream:.0f}x less) | "
              f"+1% after extraction {later / 1e6:.1f} ({len(todo[0].work)} chunks)")


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
        print("items/s: lines for json, entries for memcli (fewer: split responses merged, bookkeeping "
              "lines ignored)\n")
        ok = True
        for agent, source in sources.items():
            ok &= bench_resume(agent, source, build(source, args.mb, Path(tmp)), args.runs)
            (Path(tmp) / source.name).unlink()
        bench_plan(sources["claude-code"], build(sources["claude-code"], args.mb, Path(tmp)))
    if not ok:
        sys.exit(1)


if __name__ == "__main__":
    main()
