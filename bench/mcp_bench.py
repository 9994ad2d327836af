"""`memcli mcp` and `memcli context` speed, beside baselines measured in the same run.

Start-up, on the example workspace (issue 26: `initialize` answered within 0.2 s of importing the
SDK; agents give a server about a second): a fresh `memcli mcp` from process start to `initialize`
answered and to `tools/list` answered, with its CPU seconds, beside `python -c pass`, a bare import
of the SDK's low-level server and of its MCPServer, and the same server of a baseline revision
(`--server-baseline`, default main) run from a `git archive` of it; one run of each per round,
rounds interleaved, medians. The handshake is written as raw JSON-RPC lines, so no client cost
is counted.

On generated workspaces (bench/workspace_gen.py) of 500 and 10 000 records:
  * per-call latency of a warm `memcli_search` (one server, many calls) beside the CLI
    `memcli search --json` (one process per query), same queries;
  * `memcli context`, cold (empty state folder: no layout memo, no decoded tokenizer table) and
    warm, beside the same command of the baseline revision (before the tokenizer cache and layout
    memo), run from a `git archive` of it.
Targets (issue 14): context and server start-up < 0.5 s on 500 records, warm search < 100 ms.
The machine is shared: figures are medians, with CPU seconds (user+sys of the child) beside wall
seconds, since CPU time is what the code costs and wall time includes other processes' load.

    python bench/mcp_bench.py [--sizes 500 10000] [--runs 5] [--queries 20] [--baseline REV]
                              [--server-baseline REV] [--startup-runs 11] [--startup-only]
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

from workspace_gen import WORDS, generate

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "examples" / "workspace"
HANDSHAKE = (
    {"jsonrpc": "2.0", "id": 1, "method": "initialize",
     "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "bench", "version": "1"}}},
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}},
)


def child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_timed(cmd: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float]:
    """(wall, cpu) seconds of one process run to its end."""
    cpu0, t0 = child_cpu(), time.perf_counter()
    subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - t0, child_cpu() - cpu0


def median_of(samples: list[tuple[float, float]]) -> tuple[float, float]:
    return statistics.median(s[0] for s in samples), statistics.median(s[1] for s in samples)


def handshake(cmd: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float, float]:
    """(initialize answered, tools/list answered, cpu) seconds of one fresh server: the
    initialize request is on its stdin when it starts, as an agent writes it at once."""
    lines = [json.dumps(m).encode() + b"\n" for m in HANDSHAKE]
    cpu0, t0 = child_cpu(), time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(lines[0])
    proc.stdin.flush()
    assert b'"id":1' in proc.stdout.readline()
    t_init = time.perf_counter() - t0
    proc.stdin.write(lines[1] + lines[2])
    proc.stdin.flush()
    assert b"memcli_search" in proc.stdout.readline()
    t_list = time.perf_counter() - t0
    proc.stdin.close()
    proc.wait(timeout=60)
    return t_init, t_list, child_cpu() - cpu0


def floor_timed(code: str, env: dict[str, str]) -> tuple[float, float]:
    """(wall until `code` has run, cpu of the whole process): timed to a line it prints, as a
    server is timed to its answer, so the interpreter's shutdown is not counted."""
    cpu0, t0 = child_cpu(), time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", f"{code}; print('ready', flush=True)"], cwd=EXAMPLE,
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert proc.stdout is not None and proc.stdout.readline() == b"ready\n"
    wall = time.perf_counter() - t0
    proc.wait(timeout=60)
    return wall, child_cpu() - cpu0


def bench_startup(runs: int, base: tuple[str, Path] | None) -> None:
    """Fresh `memcli mcp` start-up beside its floors and its baseline, rounds interleaved. The
    server sets PYDANTIC_DISABLE_PLUGINS (memcli/lean.py): the SDK is timed both ways, and each
    server is compared with the import it does."""
    py = sys.executable
    # bytecode cached, as in an installed memcli (pip compiles it); the first round writes it
    env = {**{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}, "PYTHONPATH": str(REPO)}
    quiet = {**env, "PYDANTIC_DISABLE_PLUGINS": "__all__"}
    sdk, sdk_quiet = "import mcp.server.mcpserver (SDK floor)", "  the same, pydantic plugins off"
    low = "import mcp.server.lowlevel, mcp.server.stdio"
    floors = {"python -c pass": ("pass", env),
              low: (low, env),
              sdk: ("import mcp.server.mcpserver", env),
              sdk_quiet: ("import mcp.server.mcpserver", quiet),
              "import mcp_types (wire types alone)": ("import mcp_types", env)}
    targets = {"memcli mcp (this tree)": (env, sdk_quiet)}
    if base is not None:
        targets[f"memcli mcp (baseline {base[0]})"] = ({**env, "PYTHONPATH": str(base[1])}, sdk)
    rows: dict[str, list[tuple[float, float]]] = {label: [] for label in floors}
    servers: dict[str, list[tuple[float, float, float]]] = {label: [] for label in targets}
    for target_env, _ in targets.values():
        handshake([py, "-m", "memcli", "mcp"], EXAMPLE, target_env)  # writes the bytecode
    for _ in range(runs):
        for label, (code, floor_env) in floors.items():
            rows[label].append(floor_timed(code, floor_env))
        for label, (target_env, _) in targets.items():
            servers[label].append(handshake([py, "-m", "memcli", "mcp"], EXAMPLE, target_env))
    print(f"\n== memcli mcp start-up, example workspace, median of {runs} interleaved rounds ==")
    print(f"{'':46}{'initialize':>12}{'tools/list':>12}{'cpu':>10}")
    for label, samples in rows.items():
        wall, cpu = median_of(samples)
        print(f"{label:46}{ms(wall):>12}{'':>12}{ms(cpu):>10}")
    for label, samples in servers.items():
        init, listed, cpu = (statistics.median(s[i] for s in samples) for i in range(3))
        floor_wall, floor_cpu = median_of(rows[targets[label][1]])
        print(f"{label:46}{ms(init):>12}{ms(listed):>12}{ms(cpu):>10}")
        print(f"{'  over its SDK import':46}{ms(init - floor_wall):>12}{ms(listed - floor_wall):>12}"
              f"{ms(cpu - floor_cpu):>10}")


def archived_tree(rev: str, dest: Path) -> tuple[str, Path] | None:
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


def baseline_tree(rev: str | None, dest: Path) -> tuple[str, Path] | None:
    """The baseline revision's source tree, unpacked under `dest`: by default the commit before the
    one that added the layout memo (memcli/context_memo.py)."""
    git = ["git", "-C", str(REPO)]
    if rev is None:
        log = [*git, "log", "--diff-filter=A", "--format=%H", "--", "memcli/context_memo.py"]
        added = subprocess.run(log, capture_output=True, text=True, check=False).stdout.split()
        if not added:
            return None
        rev = added[-1] + "~1"
    return archived_tree(rev, dest)


def server_params(root: Path, env: dict[str, str]):
    from mcp.client.stdio import StdioServerParameters

    return StdioServerParameters(command=sys.executable, args=["-m", "memcli", "mcp"], cwd=str(root), env=env)


def search_calls(root: Path, env: dict[str, str], queries: list[str]) -> tuple[float, list[float]]:
    """(first call, later calls) seconds of `memcli_search` over one server."""
    import anyio
    from mcp.client.session import ClientSession
    from mcp.client.stdio import stdio_client

    params = server_params(root, env)

    async def go() -> tuple[float, list[float]]:
        with open(os.devnull, "w") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write):
                async with ClientSession(read, write) as client:
                    await client.initialize()
                    times = []
                    for q in queries:
                        t0 = time.perf_counter()
                        result = await client.call_tool("memcli_search", {"query": q, "limit": 10})
                        times.append(time.perf_counter() - t0)
                        assert not result.is_error, result
                    return times[0], times[1:]

    return anyio.run(go)


def ms(x: float) -> str:
    return f"{1000 * x:8.0f} ms"


def bench_size(size: int, tmp: Path, runs: int, n_queries: int, base: tuple[str, Path] | None) -> None:
    root = generate(tmp / f"ws{size}", size)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    state = tmp / f"state{size}"
    env["MEMCLI_STATE_DIR"] = str(state)
    rng = random.Random(5)
    queries = [" ".join(rng.sample(WORDS, rng.randint(1, 3))) for _ in range(n_queries)] + ["データベース"]
    print(f"\n== {size} records ==")
    print(f"{'':44}{'wall (median)':>14}{'cpu (median)':>14}")

    def row(label: str, wall: float, cpu: float | None = None) -> None:
        print(f"{label:44}{ms(wall):>14}{ms(cpu) if cpu is not None else '':>14}")

    py = sys.executable
    subprocess.run([py, "-m", "memcli", "search", "warm up"], cwd=root, env=env, capture_output=True)  # index

    first, warm = search_calls(root, env, queries)
    cli = [run_timed([py, "-m", "memcli", "search", q, "--json"], root, env) for q in queries[:runs * 2]]
    row("memcli_search, first call of a server", first)
    row(f"memcli_search, warm call (median of {len(warm)})", statistics.median(warm))
    print(f"{'memcli_search, warm call p90':44}{ms(sorted(warm)[int(len(warm) * 0.9)]):>14}")
    row(f"memcli search --json, CLI (median of {len(cli)})", *median_of(cli))

    ctx = [py, "-m", "memcli", "context"]
    cold = []
    for i in range(runs):
        env_cold = {**env, "MEMCLI_STATE_DIR": str(tmp / f"cold{size}-{i}")}
        cold.append(run_timed(ctx, root, env_cold))
    run_timed(ctx, root, env)
    warm_ctx = [run_timed(ctx, root, env) for _ in range(runs)]
    changed = []
    for _ in range(runs):  # as after a consolidation: the layout is counted again, the table is kept
        (state / "context-memo.json").unlink()
        changed.append(run_timed(ctx, root, env))
    row("memcli context, cold (empty state folder)", *median_of(cold))
    row("memcli context, memory changed (memo miss)", *median_of(changed))
    row("memcli context, warm", *median_of(warm_ctx))
    if base is not None:
        name, tree = base
        env_base = {**env, "PYTHONPATH": str(tree), "MEMCLI_STATE_DIR": str(tmp / f"base{size}")}
        run_timed(ctx, root, env_base)
        samples = [run_timed(ctx, root, env_base) for _ in range(runs)]
        row(f"memcli context, baseline {name}", *median_of(samples))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[500, 10_000])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--queries", type=int, default=20)
    parser.add_argument("--baseline", default=None, help="git revision to compare `memcli context` with")
    parser.add_argument("--server-baseline", default="main", help="git revision to compare start-up with")
    parser.add_argument("--startup-runs", type=int, default=11)
    parser.add_argument("--startup-only", action="store_true", help="measure the server's start-up alone")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        print(f"load average at start: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
        bench_startup(args.startup_runs, archived_tree(args.server_baseline, tmp / "server-baseline"))
        if args.startup_only:
            return 0
        base = baseline_tree(args.baseline, tmp / "baseline")
        for size in args.sizes:
            bench_size(size, tmp, args.runs, args.queries, base)
    return 0


if __name__ == "__main__":
    sys.exit(main())
