"""Turn record text and queries into index terms: words, identifiers, acronyms and CJK bigrams.

SQLite's own tokenizers cannot do this: `unicode61` keeps a whole Japanese sentence as one token and
`trigram` cannot match a 2-character word such as 日本. So the index stores *pre-tokenized* text
(terms joined by spaces) and FTS5's `unicode61` only splits on those spaces ("_" is a token
character there, so a whole identifier stays one term).

* Plain words are case-folded, English stopwords dropped, irregular forms turned into their base
  (irregular.py) and Snowball-stemmed ("backups" finds "backup").
* ALL-CAPS words are acronyms: case-folded and otherwise left as written, a plural "s" dropped
  (LED, LEDs → led; PRs → pr), never stemmed or looked up in the word-form table.
* Identifiers — words joined by `_ . / -` or camelCase humps (max_retries, os.path.join,
  memcli/search/text.py, --include-replaced, v1.2.3, maxRetries) — give one whole term (the parts
  case-folded and joined by "_", so maxRetries, max_retries and max-retries are one identifier) and
  then each part. Parts are suffix-stemmed like words (retry_count is found by "retries count") but
  never go through the word-form table, so `made_by` does not become make.
* CJK runs: see cjk.py.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from memcli.search.cjk import CJK_CHARS, bigrams, pieces, query_terms
from memcli.search.irregular import BASE

# Bump when the terms produced for a text change: the index is rebuilt on a version mismatch.
TOKENIZER_VERSION = 4

_W = rf"[^\W_{CJK_CHARS}]"
_TOKEN = re.compile(rf"([{CJK_CHARS}]+)|({_W}+(?:[._/\-]+{_W}+)*)")
_PART = re.compile(rf"{_W}+")
_HUMP = re.compile(r"(?<=[a-z])(?=[A-Z])")  # camelCase: a capital after a small letter
MAX_QUERY_TERMS = 64

# Common English function words: they match almost every record and only add noise to BM25.
STOPWORDS = frozenset(
    """a about above after again against all am an and any are as at be because been before being
    below between both but by can could did do does doing down during each few for from further had
    has have having he her here hers herself him himself his how i if in into is it its itself just
    me more most my myself no nor not now of off on once only or other our ours ourselves out over
    own same she should so some such than that the their theirs them themselves then there these
    they this those through to too under until up very was we were what when where which while who
    whom why will with would you your yours yourself yourselves s t d ll m re ve""".split()
)


@lru_cache(maxsize=1)
def _stemmer():
    import snowballstemmer

    return snowballstemmer.stemmer("english")


def _snowball(word: str) -> str:
    return word if len(word) < 4 or not word.isascii() or not word.isalpha() else _stemmer().stemWord(word)


@lru_cache(maxsize=200_000)
def stem(word: str) -> str:
    """English stem of a case-folded plain word: irregular forms first turned into their base (see
    memcli.search.irregular), then Snowball; other scripts are returned as they are."""
    return _snowball(BASE.get(word, word))


def _acronym(word: str) -> str | None:
    """LED → led, LEDs → led, PRs → pr, HTTP2 → http2; None for a word that is not ALL-CAPS."""
    if len(word) >= 2 and word.isupper():
        return word.casefold()
    if len(word) >= 3 and word[-1] == "s" and word[:-1].isupper():
        return word[:-1].casefold()
    return None


def word_term(word: str, *, part: bool = False) -> str | None:
    """The term of one word as written (not case-folded yet); None for a stopword.

    `part`: the word is part of an identifier, so the word-form table is not applied.
    """
    acronym = _acronym(word)
    folded = acronym or word.casefold()
    if folded in STOPWORDS:
        return None
    if acronym:
        return acronym
    return _snowball(folded) if part else stem(folded)


def _parts(chunk: str) -> list[str]:
    return [p for piece in _PART.findall(chunk) for p in _HUMP.split(piece)]


@lru_cache(maxsize=200_000)
def chunk_terms(chunk: str) -> tuple[str, ...]:
    """Terms of one Latin chunk: a plain word's term, or an identifier's whole term then its parts.

    Cached: the snippet of every hit asks for each word of the body."""
    parts = _parts(chunk)
    if len(parts) == 1:
        term = word_term(parts[0])
        return (term,) if term else ()
    whole = "_".join(p.casefold() for p in parts)
    return (whole, *(t for p in parts if (t := word_term(p, part=True))))


def normalize(text: str) -> str:
    """NFKC (full-width Latin, half-width kana) and case-folded."""
    return unicodedata.normalize("NFKC", text).casefold()


def _nfkc(text: str) -> str:
    return unicodedata.normalize("NFKC", text)


def index_terms(text: str) -> str:
    """The space-separated terms stored in the FTS table for `text`."""
    out: list[str] = []
    for cjk, chunk in _TOKEN.findall(_nfkc(text)):
        if cjk:
            out.extend(bigrams(cjk))
        else:
            out.extend(chunk_terms(chunk))
    return " ".join(out)


def query_groups(query: str) -> list[list[str]]:
    """The query as groups of terms: one term per word or identifier part, one per CJK bigram of
    each content piece (cjk.query_terms); each group can match on its own.

    Stopwords are dropped unless nothing else is left ("who" alone still searches). At most
    MAX_QUERY_TERMS distinct groups are kept, so a pasted 10 KB query stays fast.
    """
    groups: list[list[str]] = []
    seen: set[tuple[str, ...]] = set()
    for cjk, chunk in _TOKEN.findall(_nfkc(query)):
        found = query_terms(cjk) if cjk else [[t] for t in chunk_terms(chunk)]
        for group in found:
            if tuple(group) not in seen:
                seen.add(tuple(group))
                groups.append(group)
        if len(groups) >= MAX_QUERY_TERMS:
            return groups[:MAX_QUERY_TERMS]
    if not groups:  # only stopwords: search them as they are
        chunks = [chunk for _, chunk in _TOKEN.findall(_nfkc(query))]
        words = dict.fromkeys(w.casefold() for chunk in chunks for w in _parts(chunk))
        groups = [[w] for w in list(words)[:MAX_QUERY_TERMS]]
    return groups


def query_phrases(query: str) -> list[list[str]]:
    """The query's CJK runs of 3+ characters as bigram phrases: a record holding a whole run ranks
    above records that only hold its pieces."""
    return [bigrams(cjk) for cjk, _ in _TOKEN.findall(_nfkc(query)) if len(cjk) >= 3]


def is_prefix(group: list[str]) -> bool:
    """A lone CJK character: searched as the prefix of the bigrams (一 finds 一つ)."""
    return len(group) == 1 and len(group[0]) == 1 and bool(_TOKEN.match(group[0]).group(1))


def fts_query(groups: list[list[str]]) -> str:
    """An FTS5 MATCH expression: the groups OR-ed, each quoted, so no user text is FTS syntax.

    Terms contain only letters, digits and "_" (see _TOKEN), so quoting cannot be escaped. A single
    CJK character is a prefix query on the bigrams (一 finds 一つ).
    """
    parts = []
    for group in groups:
        if is_prefix(group):
            parts.append(f'"{group[0]}"*')
        else:
            parts.append('"' + " ".join(group) + '"')
    return " OR ".join(parts)


def highlight_matchers(query: str) -> tuple[set[str], list[str]]:
    """What the snippet marks: the terms of the query's words, and its CJK content pieces as literal
    substrings (the whole run first, so it is marked as one span where it occurs)."""
    terms: set[str] = set()
    runs: list[str] = []
    for cjk, chunk in _TOKEN.findall(_nfkc(query)):
        if cjk:
            runs += [cjk, *(p for p in pieces(cjk) if len(p) >= 2)]
        else:
            terms.update(chunk_terms(chunk))
    return terms, runs
