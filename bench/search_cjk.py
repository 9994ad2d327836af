"""Japanese segmentation for search: memcli's bigram pieces against morphological analysers.

    pip install janome fugashi unidic-lite sudachipy sudachidict_core   # any of them, optional
    python bench/search_cjk.py

The Japanese questions of bench/coding_set.py (as typed, and their words spaced) are searched among
all the set's records plus, as extra Japanese distractors, every paragraph of
../shared/seeds/*.ja.md when present (read in place, not copied). Every segmentation is scored by
the same BM25 (rank_bm25's BM25Okapi), so only the terms differ:
  * bigrams: memcli's scheme (records: overlapping bigrams; queries: bigrams of the kanji /
    katakana pieces, cjk.query_terms), and memcli's own search over the same records;
  * janome, fugashi + unidic-lite, sudachipy + sudachidict_core: content words (nouns, verbs,
    adjectives, as dictionary forms) of records and queries; skipped when not installed.
Printed: hit@1 / hit@3 / MRR, then the cost of each — import and dictionary load (fresh
process), time to segment every record, installed size of the package and its dictionary.
"""

from __future__ import annotations

import importlib.metadata
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from coding_set import QUESTIONS, RECORDS  # noqa: E402
from search_coding import write_workspace  # noqa: E402

SEEDS = Path(__file__).resolve().parent.parent.parent / "shared" / "seeds"  # or --seeds
_LATIN = re.compile(r"[A-Za-z0-9_]+")
CONTENT = ("名詞", "動詞", "形容詞")


def corpus(seeds: Path) -> list[tuple[str, str]]:
    docs = [(slug, text) for slug, _, text in RECORDS]
    for path in sorted(seeds.glob("*.ja.md")) if seeds.is_dir() else []:
        paras = [p.strip() for p in path.read_text(encoding="utf-8").split("\n\n") if len(p.strip()) > 20]
        docs += [(f"seed-{path.stem}-{i}", p) for i, p in enumerate(paras)]
    return docs


def bigram_doc(text: str) -> list[str]:
    from memcli.analysis.text import index_terms

    return index_terms(text).split()


def bigram_query(text: str) -> list[str]:
    from memcli.analysis.text import query_groups

    return [t for g in query_groups(text) for t in g.terms]


def janome_tokenizer():
    from janome.tokenizer import Tokenizer

    tok = Tokenizer()

    def run(text: str) -> list[str]:
        return [t.base_form if t.base_form != "*" else t.surface for t in tok.tokenize(text)
                if t.part_of_speech.split(",")[0] in CONTENT]
    return run


def fugashi_tokenizer():
    from fugashi import Tagger

    tagger = Tagger()

    def run(text: str) -> list[str]:
        return [w.feature.lemma or w.surface for w in tagger(text) if w.feature.pos1 in CONTENT]
    return run


def sudachi_tokenizer():
    from sudachipy import dictionary, tokenizer

    tok = dictionary.Dictionary(dict="core").tokenizer()
    mode = tokenizer.Tokenizer.SplitMode.B

    def run(text: str) -> list[str]:
        return [m.dictionary_form() for m in tok.tokenize(text, mode) if m.part_of_speech()[0] in CONTENT]
    return run


ANALYSERS = {
    "janome": (janome_tokenizer, ["janome"]),
    "fugashi+unidic-lite": (fugashi_tokenizer, ["fugashi", "unidic-lite"]),
    "sudachipy+core": (sudachi_tokenizer, ["sudachipy", "sudachidict-core"]),
}
LOAD = {
    "janome": "from janome.tokenizer import Tokenizer; Tokenizer().tokenize('テスト')",
    "fugashi+unidic-lite": "from fugashi import Tagger; Tagger()('テスト')",
    "sudachipy+core": ("from sudachipy import dictionary; dictionary.Dictionary(dict='core').tokenizer()"
                       ".tokenize('テスト')"),
    "bigrams": "from memcli.analysis.cjk import bigrams; bigrams('テスト')",
}


def with_latin(run):
    def both(text: str) -> list[str]:
        return [w.lower() for w in _LATIN.findall(text)] + run(text)
    return both


def installed_mb(dists: list[str]) -> float:
    total = 0
    for name in dists:
        for f in importlib.metadata.distribution(name).files or []:
            try:
                total += f.locate().stat().st_size
            except OSError:
                pass
    return total / 1e6


def load_seconds(code: str) -> float:
    out = subprocess.run([sys.executable, "-c", f"import time; t=time.perf_counter(); {code}; "
                          "print(time.perf_counter()-t)"], capture_output=True, text=True, check=True)
    return float(out.stdout.strip())


def evaluate(doc_terms: list[list[str]], query_terms, slugs: list[str]) -> dict[str, list[int | None]]:
    from rank_bm25 import BM25Okapi

    bm25 = BM25Okapi(doc_terms)
    out: dict[str, list[int | None]] = {"ja-sentence": [], "ja-spaced": []}
    for q, answer, cat, _, _ in QUESTIONS:
        if cat in out:
            scores = bm25.get_scores(query_terms(q))
            order = [slugs[i] for i in sorted(range(len(slugs)), key=lambda i: -scores[i]) if scores[i] > 0]
            out[cat].append(order.index(answer) + 1 if answer in order[:10] else None)
    return out


def memcli_ranks(docs: list[tuple[str, str]]) -> dict[str, list[int | None]]:
    from memcli.search import SearchIndex

    out: dict[str, list[int | None]] = {"ja-sentence": [], "ja-spaced": []}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        write_workspace(root)
        folder = root / "memory" / "requests"
        for slug, text in docs[len(RECORDS):]:
            (folder / f"{slug}.md").write_text(
                "---\ncreated_at: 2026-04-01T10:00:00+09:00\nupdated_at: 2026-04-01T10:00:00+09:00\n"
                f"sources:\n  - session_id: s\n    range: [0, 1]\n---\n{text}\n", encoding="utf-8")
        with SearchIndex(root) as index:
            for q, answer, cat, _, _ in QUESTIONS:
                if cat in out:
                    order = [h.slug for h in index.search(q, limit=10)]
                    out[cat].append(order.index(answer) + 1 if answer in order else None)
    return out


def cell(ranks: list[int | None]) -> str:
    n = len(ranks)
    h1 = sum(r == 1 for r in ranks) / n
    h3 = sum(r is not None and r <= 3 for r in ranks) / n
    mrr = sum(1 / r for r in ranks if r) / n
    return f"{h1:.2f} / {h3:.2f} / {mrr:.2f}"


def main() -> int:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=Path, default=SEEDS, help="folder of *.ja.md distractor documents")
    docs = corpus(parser.parse_args().seeds)
    slugs = [s for s, _ in docs]
    extra = len(docs) - len(RECORDS)
    print(f"{len(docs)} records ({extra} Japanese paragraphs of the seeds as distractors); "
          "hit@1 / hit@3 / MRR;"
          " load: import + dictionary in a fresh process (bigrams: nothing beyond memcli's own import)\n")
    print(f"{'segmentation':<24}{'ja-sentence':>22}{'ja-spaced':>22}{'load s':>9}{'segment s':>11}{'MB':>8}")
    rows = []
    bigram_doc("テスト")  # imports and caches outside the timing, as for the analysers' load
    t0 = time.perf_counter()
    terms = [bigram_doc(t) for _, t in docs]
    seg = time.perf_counter() - t0
    rows.append(("bigrams (memcli terms)", evaluate(terms, bigram_query, slugs),
                 load_seconds(LOAD["bigrams"]), seg, 0.0))
    rows.append(("memcli search", memcli_ranks(docs), None, None, None))
    for name, (make, dists) in ANALYSERS.items():
        try:
            run = with_latin(make())
            run("テスト")
        except ImportError:
            print(f"{name:<24}not installed")
            continue
        t0 = time.perf_counter()
        terms = [run(t) for _, t in docs]
        seg = time.perf_counter() - t0
        rows.append((name, evaluate(terms, run, slugs), load_seconds(LOAD[name]), seg, installed_mb(dists)))
    for name, ranks, load, seg, mb in rows:
        extra = "" if load is None else f"{load:>9.2f}{seg:>11.3f}{mb:>8.0f}"
        print(f"{name:<24}{cell(ranks['ja-sentence']):>22}{cell(ranks['ja-spaced']):>22}{extra}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
