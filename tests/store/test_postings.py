"""A record's postings, made in one pass per field, are the terms and spelling words the search
modules define (text.index_terms, spelling.words)."""

from __future__ import annotations

import random

from memcli.analysis.text import index_terms
from memcli.search.spelling import words
from memcli.store.postings import postings

PIECES = ["the", "Backups", "maxRetries", "max_retries", "os.path.join", "HTTPServer", "v1.2.3", "LEDs",
          "ｆｕｌｌ", "ﾃｽﾄ", "日本語の文書", "コミット", "café", "e\u0301", "--include-replaced", "a", "I",
          "whoWhat", "İstanbul", "ǅemal", "x86_64", "über-Cool", "\n", "  ", "/", "...", "1e3", "ΩMega"]


def _text(rng: random.Random) -> str:
    joins = ["", " ", "\n", "-", "_", "."]
    return "".join(rng.choice(PIECES) + rng.choice(joins) for _ in range(rng.randint(0, 12)))


def _expected(slug: str, path: str, ok: bool, description: str, body: str) -> tuple:
    columns = (index_terms(slug if ok else f"{slug} {path}"), index_terms(description), index_terms(body))
    count = sum(len(c.split()) for c in columns)
    return (*columns, words(f"{slug}\n{description}\n{body}"), count)


def test_one_pass_gives_what_the_search_modules_define() -> None:
    rng = random.Random(26)
    for _ in range(3000):
        slug, description, body = _text(rng), _text(rng), _text(rng)
        ok = rng.random() < 0.7
        assert postings(slug, "knowledge/x.md", ok, description, body) == _expected(
            slug, "knowledge/x.md", ok, description, body), (slug, description, body)


def test_on_generated_records(generated) -> None:  # type: ignore[no-untyped-def]
    from memcli.search import SearchIndex

    with SearchIndex(generated) as index:
        index.refresh()
        rows = index.conn.execute(
            "SELECT d.slug, d.path, d.parse_error IS NULL, t.description, t.body, t.words, f.slug,"
            " f.description, f.body, d.terms FROM docs d JOIN texts t USING (id) JOIN fts f ON f.rowid = d.id"
        ).fetchall()
    assert len(rows) > 300
    for slug, path, ok, description, body, kept_words, *kept in rows:
        slug_terms, description_terms, body_terms, spelled, count = _expected(
            slug, path, bool(ok), description, body)
        assert (kept_words, *kept) == (spelled, slug_terms, description_terms, body_terms, count)
