"""`memcli_search` over one live `memcli mcp` server, this tree beside a baseline revision.

On generated workspaces (bench/workspace_gen.py) of 1 000 and 10 000 records, each server gets N
sequential `memcli_search` calls through the SDK's stdio client (the first call, which opens and
fills the index, is reported apart). The baseline (default main) runs from a `git archive` of it
with its own state folder (the two store different code fingerprints, so a shared store would be
thrown away at each switch). Rounds interleave the two servers; per-call times are wall seconds,
pooled over the rounds: median, p90, and the ratio baseline / this tree of the medians. Both
servers must give the same hits for every query.

    python bench/mcp_search_bench.py [--sizes 1000 10000] [--rounds 3] [--calls 40] [--baseline main]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from mcp_bench import archived_tree, server_params
from workspace_gen import WORDS, generate

REPO = Path(__file__).resolve().parents[1]


def calls(root: Path, env: dict[str, str], queries: list[str]) -> tuple[float, list[float], list[str]]:
    """(first call, later calls) seconds of `memcli_search` over one server, and each answer."""
    import anyio
    from mcp.client.session import ClientSession
    from mcp.client.stdio import stdio_client

    async def go() -> tuple[float, list[float], list[str]]:
        with open(os.devnull, "w") as errlog:
            async with stdio_client(server_params(root, env), errlog=errlog) as (read, write):
                async with ClientSession(read, write) as client:
                    await client.initialize()
                    times, answers = [], []
                    for q in queries:
                        t0 = time.perf_counter()
                        result = await client.call_tool("memcli_search", {"query": q, "limit": 10})
                        times.append(time.perf_counter() - t0)
                        assert not result.is_error, result
                        answers.append(json.dumps(result.structured_content, sort_keys=True))
                    return times[0], times[1:], answers

    return anyio.run(go)


def ms(x: float) -> str:
    return f"{1000 * x:9.1f} ms"


def bench_size(size: int, tmp: Path, rounds: int, n_calls: int, base: tuple[str, Path]) -> None:
    root = generate(tmp / f"ws{size}", size)
    rng = random.Random(11)
    queries = [" ".join(rng.sample(WORDS, rng.randint(1, 3))) for _ in range(n_calls - 1)] + ["データベース"]
    targets = {"this tree": REPO, f"baseline {base[0]}": base[1]}
    envs = {label: {**os.environ, "PYTHONPATH": str(tree), "MEMCLI_STATE_DIR": str(tmp / f"state-{size}-{i}")}
            for i, (label, tree) in enumerate(targets.items())}
    firsts: dict[str, list[float]] = {label: [] for label in targets}
    warm: dict[str, list[float]] = {label: [] for label in targets}
    answers: dict[str, list[str]] = {}
    for r in range(rounds):
        order = list(targets) if r % 2 == 0 else list(reversed(targets))
        for label in order:
            first, later, said = calls(root, envs[label], queries)
            firsts[label].append(first)
            warm[label].extend(later)
            answers.setdefault(label, said)
            assert said == answers[label], f"{label}: answers changed between rounds"
    same = answers["this tree"] == answers[f"baseline {base[0]}"]
    print(f"\n== {size} records: {n_calls} sequential memcli_search calls per server, {rounds} rounds ==")
    print(f"{'':36}{'first call':>14}{'later (median)':>16}{'later (p90)':>14}")
    for label in targets:
        samples = sorted(warm[label])
        print(f"{label:36}{ms(statistics.median(firsts[label])):>14}{ms(statistics.median(samples)):>16}"
              f"{ms(samples[int(len(samples) * 0.9)]):>14}")
    ratio = statistics.median(warm[f"baseline {base[0]}"]) / statistics.median(warm["this tree"])
    print(f"{'baseline / this tree (medians)':36}{'':14}{ratio:>14.2f} ×")
    print(f"same hits for every query: {same}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--calls", type=int, default=40)
    parser.add_argument("--baseline", default="main", help="git revision to compare with")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        base = archived_tree(args.baseline, tmp / "baseline")
        if base is None:
            print(f"no revision {args.baseline!r}", file=sys.stderr)
            return 2
        print(f"load average at start: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
        for size in args.sizes:
            bench_size(size, tmp, args.rounds, args.calls, base)
    return 0


if __name__ == "__main__":
    sys.exit(main())
