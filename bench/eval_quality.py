"""`memcli eval`'s detector against generated histories with planted repetitions.

    python bench/eval_quality.py                      # 20 seeds, histories of 60 and of 300 sessions
    python bench/eval_quality.py --seeds 40 --sessions 100,500

The histories come from tests/support/eval_history.py (planted repetitions in English and
Japanese, with code identifiers; near misses; acknowledgements, questions and one-off tasks; the
same instructions in the agent's text, tool output and injected context). The even seeds are the
tuning half: the similarity threshold is chosen there (best pair F1 over a grid). The odd seeds are
the report half: precision and recall there, per history size, at the chosen threshold and at the
one memcli ships
(memcli.eval.detect.SAME), over cross-session pairs of statements and over whole repetitions,
and the pair recall by language (English–English, English–Japanese, Japanese–Japanese).
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from support.eval_history import generate, score  # noqa: E402

from memcli.eval.detect import SAME, Weights, groups, similar_pairs  # noqa: E402
from memcli.eval.statements import directives, read_sessions  # noqa: E402

GRID = [round(0.25 + 0.05 * i, 2) for i in range(9)]
_CJK = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")


def prepared(seed: int, sessions: int, folder: Path):
    history = generate(seed, sessions=sessions, repeated=max(12, min(22, sessions // 20)))
    target = folder / f"seed{seed}-{sessions}"
    history.write(target)
    read = read_sessions(target, paths=[target])
    statements, _ = directives(read)
    weights = Weights([s.features for s in statements])
    return history, read, statements, weights


def detect(read, statements, weights, threshold: float) -> list[list[tuple[str, int, str]]]:
    found = groups(len(statements), similar_pairs(statements, weights, threshold),
                   lambda i: statements[i].session)

    def key(i: int) -> tuple[str, int, str]:
        s = statements[i]
        return read[s.session].session_id, read[s.session].prompts[s.prompt].start, s.text

    return [[key(i) for i in g] for g in found]


def by_language(history, found) -> dict[str, tuple[int, int]]:
    """Pair recall per language pair: (found, planted)."""
    def lang(text: str) -> str:
        return "ja" if _CJK.search(text) else "en"

    group_of = {key: n for n, g in enumerate(found) for key in g}
    out: dict[str, list[int]] = {}
    keys = list(history.truth.items())
    for i, (ka, la) in enumerate(keys):
        for kb, lb in keys[i + 1:]:
            if la != lb or ka[0] == kb[0]:
                continue
            pair = "-".join(sorted((lang(ka[2]), lang(kb[2]))))
            hit = ka in group_of and group_of.get(ka) == group_of.get(kb)
            out.setdefault(pair, [0, 0])
            out[pair][0] += hit
            out[pair][1] += 1
    return {k: (v[0], v[1]) for k, v in sorted(out.items())}


def mean(rows: list[dict[str, float]]) -> dict[str, float]:
    return {k: sum(r[k] for r in rows) / len(rows) for k in rows[0]}


def f1(p: float, r: float) -> float:
    return 2 * p * r / (p + r) if p + r else 0.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--sessions", default="60,300", help="history sizes, comma-separated")
    args = parser.parse_args()
    sizes = [int(n) for n in args.sessions.split(",")]
    with tempfile.TemporaryDirectory() as tmp:
        data = {(seed, n): prepared(seed, n, Path(tmp)) for seed in range(args.seeds) for n in sizes}
    tune = [k for k in data if k[0] % 2 == 0]
    print(f"{args.seeds} seeds x {sizes} sessions; tuning on the even seeds, reporting on the odd seeds\n")
    print("tuning half (even seeds)\nthreshold  pair P  pair R  pair F1  group P  group R")
    best = (0.0, SAME)
    for threshold in GRID:
        m = mean([score(data[s][0], detect(*data[s][1:], threshold)) for s in tune])
        pf1 = f1(m["pair_precision"], m["pair_recall"])
        best = max(best, (round(pf1, 4), threshold))
        print(f"{threshold:9.2f}  {m['pair_precision']:6.3f}  {m['pair_recall']:6.3f}  {pf1:7.3f}  "
              f"{m['group_precision']:7.3f}  {m['group_recall']:7.3f}")
    chosen = best[1]
    print(f"\nbest pair F1 on the tuning half at {chosen}; memcli ships SAME = {SAME}\n")
    print("report half (odd seeds)\nsessions  threshold  pair P  pair R  group P  group R  found  planted")
    report = [k for k in data if k[0] % 2 == 1]
    for n in sizes:
        for threshold in dict.fromkeys((chosen, SAME)):
            m = mean([score(data[k][0], detect(*data[k][1:], threshold)) for k in report if k[1] == n])
            print(f"{n:8d}  {threshold:9.2f}  {m['pair_precision']:6.3f}  {m['pair_recall']:6.3f}  "
                  f"{m['group_precision']:7.3f}  {m['group_recall']:7.3f}  {m['found']:5.1f}  "
                  f"{m['planted']:7.1f}")
    langs: dict[str, list[int]] = {}
    for s in report:
        for pair, (hit, total) in by_language(data[s][0], detect(*data[s][1:], SAME)).items():
            langs.setdefault(pair, [0, 0])
            langs[pair][0] += hit
            langs[pair][1] += total
    print("\npair recall by language (report half, SAME): " + ", ".join(
        f"{pair} {hit / total:.3f} ({hit}/{total})" for pair, (hit, total) in sorted(langs.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
