"""Turn record text and queries into index terms: Latin words stemmed, CJK runs cut into bigrams.

SQLite's own tokenizers cannot do both: `unicode61` keeps a whole Japanese sentence as one token and
`trigram` cannot match a 2-character word such as 日本. So the index stores *pre-tokenized* text
(terms joined by spaces) and FTS5's `unicode61` only splits on those spaces. A CJK run becomes its
overlapping bigrams, and a query's CJK run becomes the phrase of its bigrams, which matches exactly
the texts that contain it as a substring (日本 is found inside 日本語).
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from memcli.search.irregular import BASE, CLIPPED

# Bump when the terms produced for a text change: the index is rebuilt on a version mismatch.
TOKENIZER_VERSION = 3

_CJK = (
    "\u3040-\u30ff"  # hiragana, katakana (incl. ー)
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"  # CJK ideographs
    "\uac00-\ud7af"  # hangul syllables
)
_TOKEN = re.compile(rf"([{_CJK}]+)|([^\W_{_CJK}]+)")
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


@lru_cache(maxsize=200_000)
def stem(word: str) -> str:
    """English Snowball stem of an ASCII word (irregular forms first turned into their base, see
    memcli.search.irregular); other scripts are returned as they are."""
    word = BASE.get(word, word)
    if not word.isascii() or not word.isalpha():
        return word
    root = _snowball(word)
    full = _clipped().get(root)
    return root if full is None else _snowball(full)


def _snowball(word: str) -> str:
    return word if len(word) < 4 else _stemmer().stemWord(word)


@lru_cache(maxsize=1)
def _clipped() -> dict[str, str]:
    """CLIPPED keyed by stem ("mommies" and "mommy" both stem to "mommi")."""
    return {_snowball(short): full for short, full in CLIPPED.items()}


def normalize(text: str) -> str:
    """NFKC (full-width Latin, half-width kana) and case-folded."""
    return unicodedata.normalize("NFKC", text).casefold()


def bigrams(run: str) -> list[str]:
    if len(run) < 2:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)]


def index_terms(text: str) -> str:
    """The space-separated terms stored in the FTS table for `text`."""
    out: list[str] = []
    for cjk, word in _TOKEN.findall(normalize(text)):
        if cjk:
            out.extend(bigrams(cjk))
        elif word not in STOPWORDS:
            out.append(stem(word))
    return " ".join(out)


def query_groups(query: str) -> list[list[str]]:
    """The query as groups of terms: one term per word, the bigram sequence of each CJK run.

    Stopwords are dropped unless nothing else is left ("who" alone still searches). At most
    MAX_QUERY_TERMS distinct groups are kept, so a pasted 10 KB query stays fast.
    """
    groups: list[list[str]] = []
    dropped: list[list[str]] = []
    seen: set[tuple[str, ...]] = set()
    for cjk, word in _TOKEN.findall(normalize(query)):
        group = bigrams(cjk) if cjk else [stem(word)]
        key = tuple(group)
        if key in seen:
            continue
        seen.add(key)
        (dropped if word and word in STOPWORDS else groups).append(group)
        if len(groups) >= MAX_QUERY_TERMS:
            break
    return groups or dropped[:MAX_QUERY_TERMS]


def is_prefix(group: list[str]) -> bool:
    """A lone CJK character: searched as the prefix of the bigrams (一 finds 一つ)."""
    return len(group) == 1 and len(group[0]) == 1 and bool(_TOKEN.match(group[0]).group(1))


def fts_query(groups: list[list[str]]) -> str:
    """An FTS5 MATCH expression: the groups OR-ed, each quoted, so no user text is FTS syntax.

    Terms contain only letters and digits (see _TOKEN), so quoting cannot be escaped. A single CJK
    character is a prefix query on the bigrams (一 finds 一つ).
    """
    parts = []
    for group in groups:
        if is_prefix(group):
            parts.append(f'"{group[0]}"*')
        else:
            parts.append('"' + " ".join(group) + '"')
    return " OR ".join(parts)


def highlight_matchers(query: str) -> tuple[set[str], list[str]]:
    """What the snippet marks: stems of the query's words, and its CJK runs as literal substrings."""
    stems: set[str] = set()
    runs: list[str] = []
    for cjk, word in _TOKEN.findall(normalize(query)):
        if cjk:
            runs.append(cjk)
        elif word not in STOPWORDS:
            stems.add(stem(word))
    return stems, runs
