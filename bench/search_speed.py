"""Speed of `memcli search` on a generated 10 000-record workspace, beside `grep -ril` and rank_bm25.

Measures, in one run on the same files:
  * full index build (empty index on disk → all records indexed),
  * query latency with a warm index (each query includes the freshness check of every file),
  * refresh + query after one file is edited, and after one is renamed,
  * the same queries with `grep -ril WORD` over the record folders, and with rank_bm25
    (BM25Okapi built in memory from the texts; its build time is shown too).
Targets (issue 4): query p50 < 50 ms warm, one-file refresh < 200 ms, full build < 5 s.

Then, as the command runs (issue 39), on bench/workspace_gen.py's workspace of --records records,
medians of --rounds cold processes interleaved round by round (load from elsewhere hits them alike):
  python -c pass           an interpreter start, the baseline
  memcli search, warm      one query, output piped, the store already built (as an agent's shell runs it)
  memcli search, cold      the same into an empty state folder: the whole index build, imports included
  memcli context, cold     a fresh clone's first session start (into an empty state folder), and
  search after it          then the agent's first search, the store left as that context left it
and the ratio warm / pass, in wall and CPU time. With --before CHECKOUT, the same commands of that
checkout (its own state folders), interleaved. Targets at 10 000 records: warm <= 4x pass, cold <= 2 s.

    python bench/search_speed.py [--records 10000] [--queries 60] [--rounds 7] [--cold-rounds 3]
        [--cli-only] [--before CHECKOUT]
        [--embedding-model openai/e5 --embedding-api-base http://127.0.0.1:8000/v1 --embed-sample 200]
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "bench"))
import embedding_args  # noqa: E402
import speed  # noqa: E402  (its process timer)
import workspace_gen  # noqa: E402
from workspace_gen import JA  # noqa: E402

WORDS = """sqlite postgres cache redis queue worker thread deploy release migration schema index backup
restore retry timeout latency api endpoint version auth token session cookie login user admin billing
invoice payment refund email reminder notification webhook cron job batch import export csv json yaml
config feature flag rollout canary monitor alert metric log trace error crash bug fix test fixture mock
docker kubernetes helm terraform ci pipeline lint format typing python fastapi pydantic celery sentry
search ranking tokenizer japanese unicode locale timezone date calendar report dashboard chart upload
storage bucket s3 cdn image thumbnail pdf parser encoding compression gzip http grpc websocket""".split()
KINDS = ["decisions", "requests", "knowledge", "workflow"]
FRONT = {
    "decisions": "status: {status}\nsources:\n  - session_id: s{n}\n    range: [0, 4]\n",
    "requests": "sources:\n  - session_id: s{n}\n    range: [0, 4]\n",
    "knowledge": (
        "kind: fact\ndescription: {desc}\nmodel_invocation: false\nuser_invocable: true\nlast_sources: []\n"
    ),
    "workflow": "description: {desc}\nauto_invoke: false\nuser_invocable: true\nrequires: []\n",
}
DATES = "created_at: 2026-04-01T10:00:00+09:00\nupdated_at: 2026-04-02T10:00:00+09:00\n"


def sentence(rng: random.Random, n: int) -> str:
    return workspace_gen.sentence(rng, n, WORDS)  # this bench's larger vocabulary


def generate(root: Path, count: int, seed: int = 7) -> list[Path]:
    rng = random.Random(seed)
    paths = []
    for folder in ("memory/decisions", "memory/requests", "memory/workflow", "knowledge"):
        (root / folder).mkdir(parents=True, exist_ok=True)
    old = time.time() - 86_400  # yesterday: mtimes old enough to be trusted without re-hashing
    for i in range(count):
        kind = KINDS[i % 4]
        folder = "knowledge" if kind == "knowledge" else f"memory/{kind}"
        slug = "-".join(rng.sample(WORDS, 3)) + f"-{i}"
        desc = sentence(rng, 8)
        front = FRONT[kind].format(status=rng.choice(["open", "resolved", "replaced"]), n=i, desc=desc)
        body = "\n\n".join(sentence(rng, rng.randint(10, 40)) for _ in range(rng.randint(2, 8)))
        path = root / folder / f"{slug}.md"
        path.write_text(f"---\n{DATES}{front}---\n{body}\n", encoding="utf-8")
        os.utime(path, (old, old))
        paths.append(path)
    return paths


def queries(n: int, seed: int = 11) -> list[str]:
    """1 in 5 Japanese (a word, or every other time a sentence of two), 1 in 5 with a typo (a letter
    of a long word dropped: the vocabulary is searched for it), the rest 1-3 words."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        if i % 5 == 4:
            a, b = rng.sample(JA, 2)
            out.append(rng.choice(JA) if i % 10 == 4 else f"{a}の{b}はどうすればいい？")
        elif i % 5 == 3:
            word = rng.choice([w for w in WORDS if len(w) >= 6])
            cut = rng.randrange(1, len(word) - 1)
            out.append(f"{word[:cut]}{word[cut + 1:]} {rng.choice(WORDS)}")
        else:
            out.append(" ".join(rng.sample(WORDS, rng.randint(1, 3))))
    return out


def kind(i: int, query: str) -> bool:
    """Is `query` of kind i (0 plain, 1 typo, 2 Japanese)? As queries() makes them."""
    japanese = not query.isascii()
    typo = not japanese and any(w not in WORDS for w in query.split())
    return (not japanese and not typo, typo, japanese)[i]


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return 1000 * values[min(len(values) - 1, int(len(values) * p))]


def stat_all(root: Path) -> None:
    """What any per-file freshness check must do at least: list the folders, lstat every file."""
    for folder in ("memory/decisions", "memory/requests", "memory/workflow", "knowledge"):
        with os.scandir(root / folder) as entries:
            for entry in entries:
                entry.stat(follow_symlinks=False)


def hybrid(index, qs: list[str], target: Path, args: argparse.Namespace) -> list[tuple[str, str, str, str]]:
    """Embedding cost, hybrid query latency and one edited record, through memcli's litellm path.

    With --embed-sample N (< records), only N records are embedded by the model (the full build
    is that time scaled to every record) and the others get a copy of a sampled record's vector,
    so queries still rank all of them: a local CPU model can take hours over 10 000 records, and
    the query path's cost depends on how many vectors there are, not on what they hold."""
    from memcli.search import semantic

    embedder = embedding_args.embedder(args)
    total = index.size()
    sample = min(args.embed_sample or total, total)
    hashes = [h for (h,) in index.conn.execute("SELECT hash FROM docs ORDER BY id")]
    rows = index.conn.execute("SELECT hash, slug, summary, body FROM docs JOIN texts USING (id) ORDER BY id"
                              " LIMIT ?", (sample,)).fetchall()
    texts = [semantic.record_text(slug, summary, body) for _, slug, summary, body in rows]
    t0 = time.perf_counter()
    vectors = [v for i in range(0, len(texts), 64) for v in embedder.embed(texts[i : i + 64])]
    build = (time.perf_counter() - t0) * total / sample
    index.conn.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?, ?)",
                           [(h, embedder.space, vectors[i % sample]) for i, h in enumerate(hashes)])
    index.search(qs[0], embedder=embedder)
    embedding_args.check(index)
    lat = [timed(lambda q=q: index.search(q, embedder=embedder)) for q in qs]
    lexical = [timed(lambda q=q: index.search(q)) for q in qs]
    target.write_text(target.read_text(encoding="utf-8") + "\nEdited for the embedder.\n", encoding="utf-8")
    edit = timed(lambda: index.search("edited", embedder=embedder))
    vectors_mb = index.conn.execute("SELECT sum(length(vec)) FROM vectors").fetchone()[0] / 1e6
    how = f"{sample} embedded, x{total / sample:.0f}" if sample < total else "all embedded"
    return [
        ("embed every record", f"{build:.0f} s ({how}; {vectors_mb:.1f} MB of vectors)", args.embedding_model,
         ""),
        ("hybrid query, warm", f"p50 {pct(lat, 0.5):.1f} / p95 {pct(lat, 0.95):.1f} ms",
         f"lexical, same index p50 {pct(lexical, 0.5):.1f} ms", "p50 < 100 ms"),
        ("edit 1 file + hybrid query", f"{1000 * edit:.1f} ms (1 record + the query embedded)", "", ""),
    ]


def timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


CLI_QUERIES = ["sqlite backup", "deploy release", "japanese tokenizer", "webhook retry timeout",
               "データベース", "kubernetes helm", "invoice refund", "timzone calendar",
               "login session cookie", "設定の通知"]
ENTRY = "from memcli.entry import main; main()"


def process(cmd: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float]:
    """(wall, CPU) seconds of one process, which must succeed."""
    return speed.timed(cmd, env, cwd, ok=(0,))


def cli(args: argparse.Namespace, tmp: Path) -> None:
    """The command as an agent runs it: warm and cold `memcli search` processes beside `python -c pass`."""
    root = workspace_gen.generate(tmp / "cli-ws", args.records)
    checkouts = {"this tree": REPO, **({"before": args.before.resolve()} if args.before else {})}
    py = sys.executable
    envs = {}
    for n, (name, checkout) in enumerate(checkouts.items()):
        env = {**os.environ, "MEMCLI_STATE_DIR": str(tmp / f"state{n}"),
               "PYTHONPATH": os.pathsep.join([str(checkout), os.environ.get("PYTHONPATH", "")])}
        for key in ("PYTHONDONTWRITEBYTECODE", "GITHUB_ACTIONS", "FORCE_COLOR"):  # as an install runs
            env.pop(key, None)
        envs[name] = env
    search = [py, "-c", ENTRY, "search"]
    for env in envs.values():  # the stores built, the bytecode and page caches warm
        for query in CLI_QUERIES[:2]:
            process([*search, query], env, root)
    pass_times: list[tuple[float, float]] = []
    warm: dict[str, list[tuple[float, float]]] = {name: [] for name in envs}
    for i in range(args.rounds):
        query = CLI_QUERIES[i % len(CLI_QUERIES)]
        pass_times.append(process([py, "-c", "pass"], envs["this tree"], root))
        for name, env in envs.items():
            warm[name].append(process([*search, query], env, root))
    cold: dict[str, list[tuple[float, float]]] = {name: [] for name in envs}
    context: dict[str, list[tuple[float, float]]] = {name: [] for name in envs}
    after: dict[str, list[tuple[float, float]]] = {name: [] for name in envs}
    for i in range(args.cold_rounds):
        for name, env in envs.items():
            state = tmp / f"cold-{i}-{name.replace(' ', '-')}"
            cold[name].append(process([*search, CLI_QUERIES[i % len(CLI_QUERIES)]],
                                      {**env, "MEMCLI_STATE_DIR": str(state)}, root))
            shutil.rmtree(state)
            fresh = {**env, "MEMCLI_STATE_DIR": str(state)}
            context[name].append(process([py, "-c", ENTRY, "context"], fresh, root))
            after[name].append(process([*search, CLI_QUERIES[i % len(CLI_QUERIES)]], fresh, root))
            shutil.rmtree(state)

    def med(got: list[tuple[float, float]], i: int) -> float:
        return statistics.median(g[i] for g in got)

    base_wall, base_cpu = med(pass_times, 0), med(pass_times, 1)
    print(f"\nThe command, on {args.records} records (bench/workspace_gen.py): median of {args.rounds} cold"
          f" processes (cold build: {args.cold_rounds}), interleaved")
    print(f"  {'':<34} {'wall':>9} {'x pass':>7} {'cpu':>9} {'x pass':>7}")
    rows = [("python -c pass", pass_times)]
    for name in envs:
        rows += [(f"memcli search, warm ({name})", warm[name]), (f"memcli search, cold ({name})", cold[name]),
                 (f"memcli context, cold ({name})", context[name]),
                 (f"search after it ({name})", after[name])]
    for label, got in rows:
        wall, cpu = med(got, 0), med(got, 1)
        print(f"  {label:<34} {wall * 1000:6.0f} ms {wall / base_wall:6.1f}x {cpu * 1000:6.0f} ms"
              f" {cpu / base_cpu:6.1f}x")
    for name in envs:
        print(f"  ratio warm/pass ({name}): {med(warm[name], 0) / base_wall:.2f}x wall,"
              f" {med(warm[name], 1) / base_cpu:.2f}x CPU (target <= 4x); cold build"
              f" {med(cold[name], 0):.2f} s wall (target <= 2 s; runs:"
              f" {', '.join(f'{w:.2f}' for w, _ in cold[name])})")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--records", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=60)
    parser.add_argument("--rounds", type=int, default=7, help="cold processes per command figure")
    parser.add_argument("--cold-rounds", type=int, default=3, help="cold builds per checkout")
    parser.add_argument("--cli-only", action="store_true", help="only the command's figures (issue 39)")
    parser.add_argument("--before", type=Path, metavar="CHECKOUT", help="also time another memcli checkout")
    embedding_args.add(parser, "also time the hybrid search")
    parser.add_argument("--embed-sample", type=int, default=0,
                        help="embed only this many records by the model, copy their vectors to the rest")
    args = parser.parse_args(argv)
    if args.cli_only:
        with tempfile.TemporaryDirectory() as tmp:
            cli(args, Path(tmp))
        print(f"load average: {' '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs")
        return 0
    from rank_bm25 import BM25Okapi

    from memcli.search import SearchIndex, index_path
    from memcli.search.rank import rank

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "ws"
        t_gen = timed(lambda: generate(root, args.records))
        paths = sorted(root.glob("**/*.md"))
        db = index_path(Path(tmp) / "state", root)
        qs = queries(args.queries)
        print(f"{args.records} records generated in {t_gen:.1f} s; {len(qs)} queries "
              "(1 in 5 Japanese, 1 in 5 with a typo)\n")

        index = SearchIndex(root, db)
        build = timed(index.refresh)
        lat = [timed(lambda q=q: index.search(q)) for q in qs]
        noop = [timed(index.refresh) for _ in range(20)]
        ranking = [timed(lambda q=q: rank(index, q)) for q in qs]  # without the freshness check
        floor = [timed(lambda: stat_all(root)) for _ in range(20)]
        target = paths[len(paths) // 2]
        edits, renames = [], []
        for i in range(5):
            target.write_text(target.read_text(encoding="utf-8") + f"\nEdited zebra{i}.\n", encoding="utf-8")
            edits.append(timed(lambda i=i: index.search(f"zebra{i}")))
            new = target.with_name(f"renamed-{i}.md")
            target.rename(new)
            target = new
            renames.append(timed(index.refresh))
        hybrid_rows = hybrid(index, qs, target, args) if args.embedding_model else []
        index.close()
        size_mb = db.stat().st_size / 1e6

        texts = [p.read_text(encoding="utf-8").lower() for p in sorted(root.glob("**/*.md"))]
        token = re.compile(r"\w+")
        bm25_build = 0.0
        t0 = time.perf_counter()
        bm25 = BM25Okapi([token.findall(t) for t in texts])
        bm25_build = time.perf_counter() - t0
        bm25_lat = [timed(lambda q=q: bm25.get_top_n(token.findall(q.lower()), texts, n=10)) for q in qs[:20]]
        folders = [str(root / "memory"), str(root / "knowledge")]
        grep_lat = [
            timed(
                lambda q=q: subprocess.run(
                    ["grep", "-ril", q.split()[0], *folders], capture_output=True, check=False
                )
            )
            for q in qs[:20]
        ]

    rows = [
        (
            "full build",
            f"{build:.2f} s ({size_mb:.1f} MB)",
            f"rank_bm25 build {bm25_build:.2f} s (memory only)",
            "< 5 s",
        ),
        (
            "query, warm index",
            f"p50 {pct(lat, 0.5):.1f} / p95 {pct(lat, 0.95):.1f} ms",
            f"grep -ril p50 {pct(grep_lat, 0.5):.1f} ms; rank_bm25 p50 {pct(bm25_lat, 0.5):.1f} ms",
            "p50 < 50 ms",
        ),
        (
            "  plain / typo / Japanese",
            " / ".join(f"{pct([t for t, q in zip(lat, qs, strict=True) if kind(i, q)], 0.5):.1f}"
                       for i in range(3)) + " ms (p50)",
            "",
            "",
        ),
        (
            "refresh, nothing changed",
            f"p50 {pct(noop, 0.5):.1f} ms",
            f"scandir + lstat of every file p50 {pct(floor, 0.5):.1f} ms (the floor)",
            "",
        ),
        ("edit 1 file + query", f"p50 {pct(edits, 0.5):.1f} ms", "", "< 200 ms"),
        ("rename 1 file + refresh", f"p50 {pct(renames, 0.5):.1f} ms", "", ""),
        *hybrid_rows,
    ]
    width = [max(len(r[i]) for r in rows) for i in range(4)]
    for r in [("measure", "memcli search", "baseline (same files)", "target"), *rows]:
        print("  ".join(c.ljust(w) for c, w in zip(r, width, strict=True)).rstrip())
    print(
        f"\nratio grep/memcli (query p50): {pct(grep_lat, 0.5) / pct(lat, 0.5):.1f}x; "
        f"rank_bm25/memcli: {pct(bm25_lat, 0.5) / pct(lat, 0.5):.1f}x; "
        f"ranking alone (no freshness check) p50 {pct(ranking, 0.5):.1f} ms"
    )
    with tempfile.TemporaryDirectory() as tmp:
        cli(args, Path(tmp))
    print(f"load average: {' '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
