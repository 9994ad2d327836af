"""Retrieval quality on a coding project's memory (bench/coding_set.py), memcli beside rank_bm25.

    python bench/search_coding.py [--before /path/to/older/memcli/checkout] [--half A|B]
        [--embedding-model openai/e5 --embedding-api-base http://127.0.0.1:8000/v1]

Every record of the set is written to a temporary workspace; each question is searched with
`memcli search` (the real SearchIndex), with rank_bm25's BM25Okapi over the same texts (lower-case
\\w+ words, as bench/search_locomo.py) and, with --before, with the memcli of another checkout (run
in a subprocess, so the old code is measured on the same set in the same run). Printed per
category and half: hit@1, hit@3 and MRR (of the answer's rank in the top 10); then every trap
question whose distractor outranks its answer, and each Japanese sentence beside its spaced form.
Halves: "A" is for tuning, "B" is the one to report.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import embedding_args  # noqa: E402
from coding_set import QUESTIONS, RECORDS  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
DEPTH = 10
_WORD = re.compile(r"\w+")
_DATES = "created_at: 2026-04-01T10:00:00+09:00\nupdated_at: 2026-04-02T10:00:00+09:00\n"
_SOURCES = "sources:\n  - session_id: s1\n    range: [0, 3]\n"
FOLDERS = {"decision": "memory/decisions", "request": "memory/requests", "knowledge": "knowledge"}


def write_workspace(root: Path) -> None:
    for slug, type_, text in RECORDS:
        if type_ == "knowledge":
            description, body = text.split("\n", 1)
            front = (f"{_DATES}kind: fact\ndescription: {description}\nmodel_invocation: true\n"
                     "user_invocable: true\nlast_sources: []\n")
        else:
            body = text
            front = _DATES + ("status: resolved\n" if type_ == "decision" else "") + _SOURCES
        path = root / FOLDERS[type_] / f"{slug}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"---\n{front}---\n{body}\n", encoding="utf-8")


def memcli_rankings(embedder=None) -> list[list[str]]:
    from memcli.search import SearchIndex

    with tempfile.TemporaryDirectory() as tmp:
        write_workspace(Path(tmp))
        with SearchIndex(Path(tmp)) as index:
            out = []
            for q, *_ in QUESTIONS:
                out.append([h.slug for h in index.search(q, limit=DEPTH, embedder=embedder)])
                embedding_args.check(index)
            return out


def bm25_rankings() -> list[list[str]]:
    from rank_bm25 import BM25Okapi

    slugs = [slug for slug, _, _ in RECORDS]
    bm25 = BM25Okapi([_WORD.findall(text.lower()) for _, _, text in RECORDS])
    out = []
    for q, *_ in QUESTIONS:
        words = _WORD.findall(q.lower())
        scores = bm25.get_scores(words)
        order = sorted(range(len(slugs)), key=lambda i: -scores[i])
        out.append([slugs[i] for i in order[:DEPTH] if scores[i] > 0])
    return out


def before_rankings(checkout: Path) -> list[list[str]]:
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    out = subprocess.run([sys.executable, __file__, "--rankings-only"], env=env, check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)


def rank_of(ranking: list[str], slug: str) -> int | None:
    return ranking.index(slug) + 1 if slug in ranking else None


def table(results: dict[str, list[list[str]]], halves: list[str]) -> list[str]:
    cats = list(dict.fromkeys(c for _, _, c, _, _ in QUESTIONS))
    names = list(results)
    lines = [f"{'category':<14}{'n':>4}  " + "".join(f"{n + ' h@1/h@3/MRR':>30}" for n in names)]
    rows: dict[str, dict[str, list[int | None]]] = defaultdict(lambda: defaultdict(list))
    for i, (_, answer, cat, half, _) in enumerate(QUESTIONS):
        if half not in halves:
            continue
        for name in names:
            r = rank_of(results[name][i], answer)
            rows[cat][name].append(r)
            rows["all"][name].append(r)
    for cat in [*cats, "all"]:
        if cat not in rows:
            continue
        n = len(rows[cat][names[0]])
        cells = []
        for name in names:
            ranks = rows[cat][name]
            h1 = sum(r == 1 for r in ranks) / n
            h3 = sum(r is not None and r <= 3 for r in ranks) / n
            mrr = sum(1 / r for r in ranks if r) / n
            cells.append(f"{h1:.2f} / {h3:.2f} / {mrr:.2f}")
        lines.append(f"{cat:<14}{n:>4}  " + "".join(f"{c:>30}" for c in cells))
    return lines


def traps(results: dict[str, list[list[str]]], halves: list[str]) -> list[str]:
    lines = []
    for name, rankings in results.items():
        bad = []
        for i, (q, answer, _, half, distractor) in enumerate(QUESTIONS):
            if distractor is None or half not in halves:
                continue
            a, d = rank_of(rankings[i], answer), rank_of(rankings[i], distractor)
            if d is not None and (a is None or d < a):
                bad.append(f"{q!r} (answer {a}, distractor {distractor} {d})")
        lines.append(f"{name}: {len(bad)} question(s) with a distractor above the answer"
                     + "".join(f"\n    {b}" for b in bad))
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", type=Path, help="another memcli checkout to measure beside this one")
    parser.add_argument("--half", choices=["A", "B"], help="only this half (A: tuning, B: reported)")
    parser.add_argument("--rankings-only", action="store_true", help=argparse.SUPPRESS)
    embedding_args.add(parser, "adds a 'memcli hybrid' column")
    args = parser.parse_args(argv)
    if args.rankings_only:
        print(json.dumps(memcli_rankings()))
        return 0
    results = {"memcli": memcli_rankings()}
    embedder = embedding_args.embedder(args)
    if embedder is not None:
        results["memcli hybrid"] = memcli_rankings(embedder)
    if args.before:
        results["memcli before"] = before_rankings(args.before)
    results["rank_bm25"] = bm25_rankings()
    print(f"{len(RECORDS)} records, {len(QUESTIONS)} questions\n")
    for halves in ([args.half] if args.half else [["A", "B"], ["A"], ["B"]]):
        label = {"AB": "all", "A": "half A (tuning)", "B": "half B (held out)"}["".join(halves)]
        print(f"== {label} ==")
        print("\n".join(table(results, list(halves))))
        print("\n".join(traps(results, list(halves))))
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
