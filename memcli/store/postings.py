"""The search postings of a stored record: its terms per column (the FTS table) and its words as
written (the spelling signal), derived from the text the store already keeps.

They are the costly part of indexing a record (tokenising, stemming), and only search reads them,
so a store refreshed for another reader (context, lint, gc-report) leaves them to the next search,
which derives them from the kept text: the record file is not read or parsed again. When the
tokenizer changes (its VERSION), every record's postings are made again from the kept text.
"""

from __future__ import annotations

from memcli.analysis.text import TOKENIZER_VERSION, index_terms, terms_and_words

VERSION = str(TOKENIZER_VERSION)


def postings(slug: str, path: str, ok: bool, description: str, body: str) -> tuple[str, str, str, str, int]:
    """(slug terms, description terms, body terms, spelling words, number of terms) of a record; a
    file that is not a valid record is also found by its path. The words are those of
    `spelling.words(f"{slug}\\n{description}\\n{body}")`, made in the same pass as the terms."""
    slug_terms, slug_words = terms_and_words(slug)
    if not ok:
        slug_terms = index_terms(f"{slug} {path}")
    description_terms, description_words = terms_and_words(description)
    body_terms, body_words = terms_and_words(body)
    terms = slug_terms.count(" ") + description_terms.count(" ") + body_terms.count(" ")
    terms += bool(slug_terms) + bool(description_terms) + bool(body_terms)
    words = " ".join(filter(None, (slug_words, description_words, body_words)))
    return slug_terms, description_terms, body_terms, words, terms
