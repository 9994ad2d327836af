"""Benchmark `memcli lint` on a generated 10 000-record workspace, side by side with the floor.

Usage: python bench/lint_bench.py [--records 10000] [--runs 5]

Every figure is the median wall time of several *cold* processes (a fresh `python` each run, as the
pre-commit hook and CI start one):
  floor       a cold python that reads every record file's bytes (the least any linter must do)
  whole       `memcli lint` over the whole workspace
  one file    `memcli lint <one changed file>` (reference checks still see all)
  the hook    `memcli lint --paths-only <one changed file>`, as the pre-commit hook runs it (the
              commit path: .pre-commit-hooks.yaml; it takes the lean route, without Typer)
Each memcli figure is taken twice: with the per-file result cache under the state dir warm (the
normal case from the second run on) and with an empty state dir (`no cache`, the honest cold figure).
A cold whole-workspace run checks files in forked helpers on every core, so its cpu figure (parent
and helpers together) exceeds its wall time on an idle machine; on a busy one the two converge.
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
import uuid
from pathlib import Path

WORDS = (
    "api cache sqlite wal backup retry queue worker auth token session login deploy release build "
    "docker ci test lint schema migration index search vector embed prompt model budget cost log "
    "metric trace alert paging oncall feature flag config secret vault rotate key tls cert proxy "
    "gateway rate limit throttle batch stream kafka redis postgres mysql orm query plan shard "
    "replica failover dns cdn asset image upload storage bucket s3 gc compaction snapshot restore "
    "timezone locale i18n japanese unicode encoding csv json yaml toml parser formatter cli tui "
    "web ui react vue css theme dark mode access audit gdpr pii consent email smtp webhook cron "
    "scheduler job runner thread async await pool memory leak profile perf bench latency p99"
).split()
KINDS = {"knowledge": ("term", "policy", "rule", "fact", "howto")}
TS = "2026-04-27T10:00:00+09:00"


def _slugs(rng: random.Random, n: int, taken: set[str]) -> list[str]:
    out = []
    while len(out) < n:
        slug = "-".join(rng.sample(WORDS, rng.choice((2, 3, 3, 4))))
        if slug not in taken and len(slug) <= 64:
            taken.add(slug)
            out.append(slug)
    return out


def _body(rng: random.Random, lo: int, hi: int) -> str:
    target = rng.randint(lo, hi)
    words: list[str] = []
    size = 0
    while size < target:
        w = rng.choice(WORDS)
        words.append(w)
        size += len(w) + 1
    lines = [" ".join(words[i : i + 14]) for i in range(0, len(words), 14)]
    return "\n".join(lines) + "\n"


def _sources(rng: random.Random, key: str) -> str:
    out = [f"{key}:"]
    for _ in range(rng.randint(1, 4)):
        start = rng.randint(0, 400)
        session = uuid.UUID(int=rng.getrandbits(128))
        out.append(f"  - session_id: {session}\n    range: [{start}, {start + rng.randint(0, 60)}]")
    return "\n".join(out)


def generate(root: Path, records: int, seed: int = 7) -> list[str]:
    """Write a workspace of `records` records; return the workspace-relative paths."""
    rng = random.Random(seed)
    taken: set[str] = set()
    counts = {
        "decision": records * 40 // 100,
        "request": records * 25 // 100,
        "knowledge": records * 30 // 100,
    }
    counts["workflow"] = records - 1 - sum(counts.values())
    paths: list[str] = []

    def write(rel: str, text: str) -> None:
        full = root / rel
        full.parent.mkdir(parents=True, exist_ok=True)
        full.write_text(text, encoding="utf-8")
        paths.append(rel)

    write("memory/summary.md", f"---\nupdated_at: {TS}\n---\n" + _body(rng, 3000, 8000))
    decisions = _slugs(rng, counts["decision"], taken)
    for i, slug in enumerate(decisions):
        # every 20th decision is replaced by a later one (short chains, never cycles)
        if i % 20 == 0 and i + 1 < len(decisions):
            status = f"status: replaced\nreplaced_by: {decisions[i + 1]}"
        else:
            status = f"status: {rng.choice(('open', 'resolved'))}"
        write(
            f"memory/decisions/{slug}.md",
            f"---\ncreated_at: {TS}\nupdated_at: {TS}\n{status}\n{_sources(rng, 'sources')}\n---\n"
            + _body(rng, 200, 1400),
        )
    for slug in _slugs(rng, counts["request"], taken):
        write(
            f"memory/requests/{slug}.md",
            f"---\ncreated_at: {TS}\nupdated_at: {TS}\n{_sources(rng, 'sources')}\n---\n"
            + _body(rng, 100, 800),
        )
    knowledge = _slugs(rng, counts["knowledge"], taken)
    for slug in knowledge:
        write(
            f"knowledge/{slug}.md",
            f"---\ncreated_at: {TS}\nupdated_at: {TS}\nkind: {rng.choice(KINDS['knowledge'])}\n"
            f"description: When to use {slug.replace('-', ' ')}.\nmodel_invocation: {rng.random() < 0.3}\n"
            f"user_invocable: true\n{_sources(rng, 'last_sources')}\n---\n" + _body(rng, 300, 2000),
        )
    for slug in _slugs(rng, counts["workflow"], taken):
        requires = ", ".join(rng.sample(knowledge, 2))
        write(
            f"memory/workflow/{slug}.md",
            f"---\ncreated_at: {TS}\nupdated_at: {TS}\ndescription: Steps to {slug.replace('-', ' ')}.\n"
            f"auto_invoke: false\nuser_invocable: true\nrequires: [{requires}]\n---\n"
            + _body(rng, 200, 1200),
        )
    return paths


_FLOOR = """
import os, sys
n = 0
for top in ("memory", "knowledge"):
    for d, _, files in os.walk(os.path.join(sys.argv[1], top)):
        for f in files:
            with open(os.path.join(d, f), "rb") as fh:
                n += len(fh.read())
"""


def _time(cmd: list[str], env: dict[str, str], runs: int, *, before=None) -> tuple[float, float, int]:
    """Median wall seconds, median CPU seconds (user + sys of the child: less sensitive to other
    load on a shared machine), and the last exit code."""
    walls, cpus = [], []
    rc = 0
    for _ in range(runs):
        if before:
            before()
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        walls.append(time.perf_counter() - t0)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - usage.ru_utime + after.ru_stime - usage.ru_stime)
        rc = proc.returncode
        if rc not in (0, 1):
            sys.exit(f"{' '.join(cmd)} failed ({rc}): {proc.stderr.decode()[-2000:]}")
    return statistics.median(walls), statistics.median(cpus), rc


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--records", type=int, default=10_000)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="memcli-bench-") as tmp:
        root = Path(tmp) / "ws"
        state = Path(tmp) / "state"
        paths = generate(root, args.records)
        one = root / next(p for p in paths if p.startswith("memory/decisions/"))
        env = {**os.environ, "MEMCLI_STATE_DIR": str(state)}
        env.pop("GITHUB_ACTIONS", None)
        py = sys.executable
        lint = [py, "-m", "memcli", "lint", "--workspace", str(root)]

        def clear_cache() -> None:
            subprocess.run(["rm", "-rf", str(state)], check=True)

        rows: list[tuple[str, float, float]] = []
        floor, floor_cpu, _ = _time([py, "-c", _FLOOR, str(root)], env, args.runs)
        rows.append(("floor: cold python reading every file", floor, floor_cpu))
        rows.append(("python -c pass (interpreter start)", *_time([py, "-c", "pass"], env, args.runs)[:2]))
        whole_nc, whole_nc_cpu, rc = _time(lint, env, args.runs, before=clear_cache)
        rows.append((f"whole workspace, no cache (exit {rc})", whole_nc, whole_nc_cpu))
        _time(lint, env, 1)  # fill the cache
        rows.append(("whole workspace, cache warm", *_time(lint, env, args.runs)[:2]))
        one_nc, one_nc_cpu, _ = _time([*lint, str(one)], env, args.runs, before=clear_cache)
        rows.append(("one changed file, no cache", one_nc, one_nc_cpu))
        _time(lint, env, 1)
        one.write_text(one.read_text(encoding="utf-8") + "\nedited\n", encoding="utf-8")  # really changed
        rows.append(("one changed file, cache warm", *_time([*lint, str(one)], env, args.runs)[:2]))
        hook = [py, "-m", "memcli", "lint", "--paths-only", "--workspace", str(root), str(one)]
        _time(lint, env, 1)
        one.write_text(one.read_text(encoding="utf-8") + "\nedited again\n", encoding="utf-8")
        hook_warm, hook_cpu, _ = _time(hook, env, args.runs)
        rows.append(("the hook: --paths-only, one changed file", hook_warm, hook_cpu))
        n = len(paths)
        print(
            f"memcli lint benchmark: {n} records, median of {args.runs} cold processes, "
            f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}"
        )
        print(f"  {'':<42} {'wall':>8}      {'':>11} {'cpu':>8}")
        for label, secs, cpu in rows:
            print(f"  {label:<42} {secs * 1000:8.0f} ms {secs / floor:5.1f}x floor {cpu * 1000:8.0f} ms")
        print(
            f"  targets: whole < 1500 ms (no cache: {whole_nc * 1000:.0f} ms wall, "
            f"{whole_nc_cpu * 1000:.0f} ms cpu), one file < 300 ms "
            f"(no cache: {one_nc * 1000:.0f} ms wall, {one_nc_cpu * 1000:.0f} ms cpu; the hook, cache "
            f"warm: {hook_warm * 1000:.0f} ms)"
        )


if __name__ == "__main__":
    main()
