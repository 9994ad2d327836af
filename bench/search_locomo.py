"""Retrieval quality of `memcli search` on LoCoMo observations, beside plain BM25 and the paper's DRAGON.

LoCoMo (Maharana et al., ACL 2024) is CC BY-NC 4.0: it is never copied into this repository. This
script reads it from ../shared/corpus/locomo/locomo10.json (or --path) and says so when it is absent.

Method (as the paper's Table 3, "Observation" rows, and its task_eval/evaluation.py):
  * every `observation` fact becomes one memory record (a decision file in a temporary workspace,
    neutral slug `obs-<session>-<n>`, the fact as its body, its evidence dialog id(s) kept in a map,
    the session as its Source);
  * each QA question is searched against its own conversation's records (memcli: the real
    SearchIndex over the files; baseline: rank_bm25's BM25Okapi over the same texts, tokenised as
    lower-case words);
  * recall@k of a question = fraction of its evidence dialog ids that the top-k records cite;
    a question without evidence counts as 1; reported per category (README names) and overall;
  * "ceiling" is the recall of returning every record: ~19% of the QA evidence ids are cited by no
    observation, so no retriever over observations can pass ~81% overall.

    python bench/search_locomo.py [--path locomo10.json] [--ks 5 10 25] [--half first|second]
        [--embedding-model openai/e5 --embedding-api-base http://127.0.0.1:8000/v1]   # + hybrid

Tuning a ranking parameter: choose it on `--half first` (conversations 0-4), report `--half second`
(5-9, held out) and the full set, so the figures are not fitted to the questions they are read on.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import embedding_args  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
DEFAULT = REPO.parent / "shared" / "corpus" / "locomo" / "locomo10.json"
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
ORDER = ["single-hop", "multi-hop", "temporal", "open-domain", "adversarial", "overall"]
# Paper Table 3, Observation rows, recall@k of DRAGON, in ORDER (single-hop ... overall)
DRAGON = {
    5: [67.1, 41.4, 73.1, 35.1, 37.7, 56.2],
    10: [70.5, 50.9, 76.4, 37.6, 45.1, 61.3],
    25: [74.7, 60.6, 80.3, 49.0, 53.5, 67.5],
}
_DIA = re.compile(r"D\d+:\d+")
_WORD = re.compile(r"\w+")
_FRONT = (
    "---\ncreated_at: 2023-01-01T00:00:00+00:00\nupdated_at: 2023-01-01T00:00:00+00:00\n"
    "status: resolved\nsources:\n  - session_id: {sid}\n    range: [{turn}, {turn}]\n---\n"
)


def dia_ids(value: object) -> list[str]:
    """Evidence ids of one entry; tolerates the corpus quirks ("D8:6; D9:17", lists, junk)."""
    if isinstance(value, list):
        return [d for v in value for d in dia_ids(v)]
    return _DIA.findall(str(value))


def observations(conv: dict) -> list[tuple[str, str, list[str]]]:
    """(slug, fact, evidence ids) for every observation of one conversation."""
    out = []
    for key, by_speaker in conv["observation"].items():
        session = key.split("_")[1]
        n = 0
        for facts in by_speaker.values():
            for fact, evidence in facts:
                n += 1
                out.append((f"obs-{session}-{n}", fact, dia_ids(evidence)))
    return out


def write_workspace(root: Path, sample_id: str, obs: list[tuple[str, str, list[str]]]) -> None:
    folder = root / "memory" / "decisions"
    folder.mkdir(parents=True)
    for slug, fact, evidence in obs:
        turn = int(evidence[0].split(":")[1]) if evidence else 0
        sid = f"{sample_id}-session-{slug.split('-')[1]}"
        (folder / f"{slug}.md").write_text(_FRONT.format(sid=sid, turn=turn) + fact + "\n", encoding="utf-8")


def recall(retrieved: list[list[str]], evidence: list[str], k: int) -> float:
    if not evidence:
        return 1.0
    got = {d for ids in retrieved[:k] for d in ids}
    return sum(e in got for e in evidence) / len(evidence)


def evaluate(data: list[dict], ks: list[int], embedder=None) -> tuple[dict, dict, dict]:
    from rank_bm25 import BM25Okapi

    from memcli.search import SearchIndex

    kmax = max(ks)
    scores: dict[str, dict] = {
        "memcli": defaultdict(list),
        "hybrid": defaultdict(list),
        "rank_bm25": defaultdict(list),
        "ceiling": defaultdict(list),
    }
    latency: dict[str, list[float]] = {"memcli": [], "hybrid": [], "rank_bm25": []}
    counts: dict[str, int] = defaultdict(int)
    for n, conv in enumerate(data):
        obs = observations(conv)
        evidence_of = {slug: ev for slug, _, ev in obs}
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            write_workspace(root, conv["sample_id"], obs)
            bm25 = BM25Okapi([_WORD.findall(fact.lower()) for _, fact, _ in obs])
            with SearchIndex(root) as index:
                index.refresh()
                for qa in conv["qa"]:
                    cat = CATEGORIES[qa["category"]]
                    evidence = dia_ids(qa.get("evidence", []))
                    counts[cat] += 1
                    t0 = time.perf_counter()
                    hits = index.search(qa["question"], limit=kmax, include_replaced=True)
                    latency["memcli"].append(time.perf_counter() - t0)
                    mem = [evidence_of[h.slug] for h in hits]
                    ranked_lists = [("memcli", mem)]
                    if embedder is not None:
                        t0 = time.perf_counter()
                        hits = index.search(qa["question"], limit=kmax, include_replaced=True,
                                            embedder=embedder)
                        latency["hybrid"].append(time.perf_counter() - t0)
                        embedding_args.check(index)
                        ranked_lists.append(("hybrid", [evidence_of[h.slug] for h in hits]))
                    t0 = time.perf_counter()
                    top = bm25.get_top_n(_WORD.findall(qa["question"].lower()), list(range(len(obs))), n=kmax)
                    latency["rank_bm25"].append(time.perf_counter() - t0)
                    base = [obs[i][2] for i in top]
                    every = [ev for _, _, ev in obs]  # all records: what any retriever could reach
                    for name, ranked in (*ranked_lists, ("rank_bm25", base), ("ceiling", every)):
                        for k in ks:
                            got = recall(ranked, evidence, len(ranked) if name == "ceiling" else k)
                            scores[name][(cat, k)].append((n, got))
                            scores[name][("overall", k)].append((n, got))
    return scores, latency, counts


def _mean(values: list[tuple[int, float]], convs: range) -> float:
    kept = [v for n, v in values if n in convs]
    return 100.0 * sum(kept) / len(kept) if kept else float("nan")


def report(scores: dict, latency: dict, counts: dict, ks: list[int], halves: dict[str, range]) -> str:
    lines = [
        f"questions: {sum(counts.values())} (" + ", ".join(f"{c} {counts[c]}" for c in ORDER[:-1]) + ")",
        "",
    ]
    head = f"{'recall@k (%)':<22}" + "".join(f"{c:>13}" for c in ORDER)
    for label, convs in halves.items():
        lines += [f"== conversations {label} =="]
        for k in ks:
            lines += [head.replace("@k", f"@{k}"), "-" * len(head)]
            rows = [(name, [_mean(scores[name][(c, k)], convs) for c in ORDER])
                    for name in ("memcli", "hybrid", "rank_bm25") if scores[name]]
            if k in DRAGON and label.startswith("all"):
                rows.append(("DRAGON (paper)", DRAGON[k]))
            rows.append(("ceiling (all records)", [_mean(scores["ceiling"][(c, k)], convs) for c in ORDER]))
            for name, vals in rows:
                lines.append(f"{name:<22}" + "".join(f"{v:>13.1f}" for v in vals))
            lines.append("")
    lines.append("overall recall@" + "/".join(map(str, ks)) + ":")
    for label, convs in halves.items():
        for name in ("memcli", "hybrid", "rank_bm25"):
            if not scores[name]:
                continue
            figures = "/".join(f"{_mean(scores[name][('overall', k)], convs):.1f}" for k in ks)
            lines.append(f"  {label:<14} {name:<10} {figures}")
    if all(k in DRAGON for k in ks):
        lines.append(f"  {'paper':<14} {'DRAGON':<10} " + "/".join(f"{DRAGON[k][-1]:.1f}" for k in ks))
    lines.append("")
    for name, lat in latency.items():
        if not lat:
            continue
        lat = sorted(lat)
        lines.append(
            f"{name:<10} query latency: p50 {1000 * lat[len(lat) // 2]:.2f} ms, "
            f"p95 {1000 * lat[int(len(lat) * 0.95)]:.2f} ms"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--path", type=Path, default=DEFAULT, help="locomo10.json (CC BY-NC 4.0, not shipped)"
    )
    parser.add_argument("--ks", type=int, nargs="+", default=[5, 10, 25])
    parser.add_argument("--half", choices=["first", "second"],
                        help="only the first or second half of the conversations (tune on one, report both)")
    embedding_args.add(parser, "adds a 'hybrid' row")
    args = parser.parse_args(argv)
    if not args.path.is_file():
        print(
            f"LoCoMo not found at {args.path}: this benchmark needs the corpus (CC BY-NC 4.0, not shipped "
            "with memcli); pass --path locomo10.json. Nothing measured."
        )
        return 0
    data = json.loads(args.path.read_text(encoding="utf-8"))
    mid = len(data) // 2
    if args.half:
        data = data[:mid] if args.half == "first" else data[mid:]
        halves = {f"{args.half} half": range(len(data))}
    else:  # the whole set and each half, one run: tune on 0-4, read the held-out 5-9
        halves = {f"all 0-{len(data) - 1}": range(len(data)), f"0-{mid - 1} (tune)": range(mid),
                  f"{mid}-{len(data) - 1} (held out)": range(mid, len(data))}
    t0 = time.perf_counter()
    embedder = embedding_args.embedder(args)
    scores, latency, counts = evaluate(data, sorted(args.ks), embedder)
    print(report(scores, latency, counts, sorted(args.ks), halves))
    print(f"\n({len(data)} conversations, {time.perf_counter() - t0:.1f} s; data: {args.path})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
