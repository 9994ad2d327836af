"""Benchmark `memcli extract`: concurrency against the ideal, prompt overhead, and local throughput.

Usage: python bench/extract_bench.py [--chunks 40] [--delay 1.0] [--runs 3]

Three figures, each side by side with its baseline from the same run:
  concurrency   `extract` over N one-chunk sessions while the fake OpenAI-compatible server (the test
                harness, real HTTP through litellm) takes `--delay` s per call; baseline: the ideal
                N * delay / concurrency seconds (ratio = measured / ideal; 1.00 is perfect)
  instructions  tokens of the fixed instructions (system prompt + user template) per chunk, next to
                the median transcript tokens per chunk of the real sample transcripts
  throughput    redaction + chunking MB/s on the largest real transcript; baseline: reading and
                parsing the same file with the session adapter alone (median of --runs)
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from support.fake_llm import FAKE_MODEL, FakeLLM, Reply  # noqa: E402  (the test harness's server)

from memcli.extract import prompt  # noqa: E402
from memcli.extract.prepare import chunk, estimate_tokens, prepare  # noqa: E402
from memcli.sessions import read_session, sessions_in  # noqa: E402

TRANSCRIPTS = REPO / "tests" / "fixtures" / "transcripts"


def bench_concurrency(chunks: int, delay: float) -> None:
    from memcli.extract.run import run
    from memcli.workspace import Workspace

    with tempfile.TemporaryDirectory() as tmp, FakeLLM() as fake:
        root = Path(tmp)
        os.environ.update(OPENAI_API_BASE=fake.url, OPENAI_API_KEY="sk-bench-not-secret",
                          MEMCLI_STATE_DIR=str(root / "state"))
        (root / "ws" / "memory").mkdir(parents=True)
        (root / "ws" / "memcli.toml").write_text(
            f'[memory]\nextract_model = "{FAKE_MODEL}"\n[extract]\nidle_minutes = 0\n', encoding="utf-8")
        for i in range(chunks):
            rows = [{"role": "user", "content": f"session {i}: keep the index in SQLite"},
                    {"role": "assistant", "content": "ok"}]
            (root / "s" / f"s{i}.jsonl").parent.mkdir(exist_ok=True)
            (root / "s" / f"s{i}.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
        (root / "warm").mkdir()
        (root / "warm" / "w.jsonl").write_text('{"role": "user", "content": "warm up"}\n')
        ws = Workspace.open(root / "ws")
        concurrency = ws.config.extract.concurrency
        saved = sys.stdout
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - the JSON summaries are not the figure
        try:
            run(ws, paths=[root / "warm"], as_json=True)  # litellm import and client set-up, untimed
            fake.responder = lambda body: Reply(content="{}", delay=delay)
            fake.requests.clear()
            fake.max_in_flight = 0
            started = time.perf_counter()
            run(ws, paths=[root / "s"], as_json=True)
            took = time.perf_counter() - started
        finally:
            sys.stdout.close()
            sys.stdout = saved
        ideal = chunks * delay / concurrency
        print(f"concurrency   {chunks} chunks x {delay:g}s, {concurrency} in flight: {took:6.2f}s  "
              f"ideal {ideal:.2f}s  ratio {took / ideal:.2f}  (calls {fake.calls}, "
              f"max in flight {fake.max_in_flight})")


def _corpus_files() -> list[Path]:
    return sorted(p for p in TRANSCRIPTS.rglob("*") if p.suffix in (".jsonl", ".json", ".md")
                  and p.name != "README.md")


def bench_instructions() -> None:
    system = prompt.load("system")
    template = prompt.load("user").replace("{{transcript}}", "")
    fixed = estimate_tokens(system) + estimate_tokens(template)
    per_chunk = []
    for path in _corpus_files():
        for info in sessions_in(path):
            _, entries = read_session(info)
            items = [p for p in (prepare(e, 2_000) for e in entries) if p is not None]
            per_chunk += [estimate_tokens(c.text()) for c in chunk(items, 12_000)]
    median = statistics.median(per_chunk) if per_chunk else 0
    print(f"instructions  {fixed} tokens per chunk (system {estimate_tokens(system)}); median transcript "
          f"{median:.0f} tokens over {len(per_chunk)} real chunks; overhead {fixed / max(1, median):.0%}")


def bench_throughput(runs: int) -> None:
    path = max(_corpus_files(), key=lambda p: p.stat().st_size)
    infos = sessions_in(path)
    size = path.stat().st_size / 1e6
    read_times, all_times = [], []
    for _ in range(runs):
        started = time.perf_counter()
        entries = [e for info in infos for e in read_session(info)[1]]
        read_times.append(time.perf_counter() - started)
        started = time.perf_counter()
        entries = [e for info in infos for e in read_session(info)[1]]
        chunk([p for p in (prepare(e, 2_000) for e in entries) if p is not None], 12_000)
        all_times.append(time.perf_counter() - started)
    read_s, all_s = statistics.median(read_times), statistics.median(all_times)
    prep_s = max(1e-9, all_s - read_s)
    print(f"throughput    {path.name} ({size:.2f} MB): read+parse {size / read_s:6.1f} MB/s (baseline), "
          f"redact+chunk {size / prep_s:6.1f} MB/s, end to end {size / all_s:6.1f} MB/s "
          f"({all_s / read_s:.2f}x the read alone)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--chunks", type=int, default=40)
    parser.add_argument("--delay", type=float, default=1.0)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    bench_instructions()
    bench_throughput(args.runs)
    bench_concurrency(args.chunks, args.delay)


if __name__ == "__main__":
    main()
