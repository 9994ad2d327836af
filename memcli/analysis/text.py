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
  memcli/analysis/text.py, --include-replaced, v1.2.3, maxRetries) — give one whole term (the parts
  case-folded and joined by "_", so maxRetries, max_retries and max-retries are one identifier) and
  then each part. Parts are suffix-stemmed like words (retry_count is found by "retries count") but
  never go through the word-form table, so `made_by` does not become make.
* CJK runs: see cjk.py.

The index keeps words as written; only the query side joins the word-form families that touch a
code word (go/went/gone, make/made, get/got, lead/led ...; irregular.CODE_FAMILIES): a query word
written in lowercase as a plain word carries the other forms of its family as alternatives, which
score at a lower weight (bm25.ALT_WEIGHT), so "where did she go" finds "she went" while a record
holding "go" itself ranks above it, and "Go", "GO" or `go_mod` never stand for "went".
"""

from __future__ import annotations

import re
import threading
import unicodedata
from collections.abc import Sequence
from dataclasses import field
from functools import lru_cache
from operator import itemgetter

from memcli.analysis.cjk import CJK_CHARS, bigrams, pieces, query_terms
from memcli.analysis.irregular import BASE, CODE_FAMILIES
from memcli.values import frozen

# Bump when the terms produced for a text change: the index is rebuilt on a version mismatch.
TOKENIZER_VERSION = 4

_W = rf"[^\W_{CJK_CHARS}]"
TOKEN = rf"([{CJK_CHARS}]+)|({_W}+(?:[._/\-]+{_W}+)*)"  # a CJK run, or a Latin chunk
PART = rf"{_W}+"  # a word of a chunk
# The same two on ASCII text, where no CJK run can match (group 1 is then always empty) and a word
# character that is not "_" is a letter or a digit. Compiling the CJK-aware patterns costs 5-13 ms
# (sre fills the class's 48 000 characters one by one, four times), at every start of a command
# that reads a query: they are compiled only for the first text that is not ASCII.
_ASCII_TOKEN = re.compile(r"()([A-Za-z0-9]+(?:[._/\-]+[A-Za-z0-9]+)*)")
_ASCII_PART = re.compile(r"[A-Za-z0-9]+")
_HUMP = re.compile(r"(?<=[a-z])(?=[A-Z])")  # camelCase: a capital after a small letter
MAX_QUERY_TERMS = 64


@lru_cache(maxsize=1)
def _unicode() -> tuple[re.Pattern[str], re.Pattern[str]]:
    return re.compile(TOKEN), re.compile(PART)


def _token(text: str) -> re.Pattern[str]:
    """TOKEN, compiled, for `text`."""
    return _ASCII_TOKEN if text.isascii() else _unicode()[0]


def _part(text: str) -> re.Pattern[str]:
    """PART, compiled, for `text`."""
    return _ASCII_PART if text.isascii() else _unicode()[1]


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


_LOADING = threading.Lock()  # one thread at a time: the stand-in package must never be seen


_LOCAL = threading.local()  # a stemmer per thread: Snowball's keeps its cursor in the instance


def _stemmer():
    """This thread's Snowball English stemmer. One instance is not safe across threads (its cursor
    and buffer live in it: two threads stemming at once mix their words or raise IndexError), and
    extract's and import's worker threads stem at once, so each thread gets its own."""
    stemmer = getattr(_LOCAL, "stemmer", None)
    if stemmer is None:
        stemmer = _LOCAL.stemmer = _stemmer_maker()()
    return stemmer


@lru_cache(maxsize=1)
def _stemmer_maker():  # -> a callable giving a new English stemmer
    """What makes Snowball's English stemmer. `import snowballstemmer` loads the stemmers of all its
    36 languages first (~35 ms, a third of an interpreter start, paid by every `memcli search`), so
    where the package is its pure-Python self (PyStemmer absent: then it is what the package gives
    anyway) the English module is loaded alone; else the package decides, as it always has."""
    with _LOADING:
        import importlib.util  # here: only stemming needs it; context never stems
        import sys

        if "snowballstemmer" not in sys.modules and importlib.util.find_spec("Stemmer") is None:
            english = _english_alone()
            if english is not None:
                return english
        import snowballstemmer  # here: only stemming loads a stemmer

        return lambda: snowballstemmer.stemmer("english")


def _english_alone():  # -> snowballstemmer's EnglishStemmer class, or None where it cannot be found so
    """snowballstemmer.english_stemmer (and the two modules it imports) without the package's
    __init__: under a stand-in package that is taken out of sys.modules again afterwards, so a
    later `import snowballstemmer` (another reader in the process) loads the real package."""
    import importlib.util  # here: only stemming loads a stemmer
    import sys
    import types

    spec = importlib.util.find_spec("snowballstemmer")
    if spec is None or not spec.submodule_search_locations:
        return None
    names = [n for n in sys.modules if n == "snowballstemmer" or n.startswith("snowballstemmer.")]
    if names:  # another thread is loading it: take what the package gives
        return None
    stand_in = types.ModuleType("snowballstemmer")
    stand_in.__path__ = list(spec.submodule_search_locations)
    sys.modules["snowballstemmer"] = stand_in
    try:
        from snowballstemmer.english_stemmer import EnglishStemmer  # here: as above
    except ImportError:
        return None
    finally:
        for name in [n for n in sys.modules if n == "snowballstemmer" or n.startswith("snowballstemmer.")]:
            del sys.modules[name]
    return EnglishStemmer


@frozen
class Group:
    """One query word as searched. `terms`: one term, a CJK bigram phrase or a lone CJK character
    (a prefix, see is_prefix); `alternatives`: other index terms of the same word (went, gone, goe
    for "go"), matched at a lower weight (bm25.ALT_WEIGHT); `word`: the Latin word or identifier
    part as typed, case-folded, before stemming ("" for a CJK group or a whole identifier) — what
    a typo is measured on (memcli.search.typos). Not part of a group's identity."""

    terms: tuple[str, ...]
    alternatives: tuple[str, ...] = ()
    word: str = field(default="", compare=False)

    @property
    def forms(self) -> tuple[str, ...]:
        """Every term that counts as this group where a single term is looked up (coord, adjacency)."""
        return self.terms + self.alternatives

    def held(self, present: set[str]) -> bool:
        """Whether a record with these terms holds the word, as written or in another form."""
        return all(t in present for t in self.terms) or any(t in present for t in self.alternatives)


@lru_cache(maxsize=200_000)  # identifier parts come here directly: the same few words in every record
def _snowball(word: str) -> str:
    return word if len(word) < 4 or not word.isascii() or not word.isalpha() else _stemmer().stemWord(word)


@lru_cache(maxsize=200_000)
def stem(word: str) -> str:
    """English stem of a case-folded plain word: irregular forms first turned into their base (see
    memcli.analysis.irregular), then Snowball; other scripts are returned as they are."""
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


@lru_cache(maxsize=1)
def _family_terms() -> dict[str, tuple[str, ...]]:
    """Term of a form of a CODE_FAMILIES family → the terms of the other forms (go → went gone goe)."""
    out: dict[str, tuple[str, ...]] = {}
    for forms in CODE_FAMILIES:
        terms = list(dict.fromkeys(t for f in forms if (t := word_term(f))))
        for term in terms:
            out[term] = tuple(t for t in terms if t != term)
    return out


def alternatives(word: str) -> tuple[str, ...]:
    """Other forms of a plain query word of a code-word family, as index terms; none unless the word
    is written in lowercase (Go, GO, Make stay as written)."""
    if not word.islower():
        return ()
    term = word_term(word)
    return _family_terms().get(term, ()) if term else ()


def word_parts(text: str) -> list[str]:
    """The words of `text` as written, split at `_ . / -` and camelCase humps (CJK runs left out)."""
    return [p for piece in _part(text).findall(text)
            for p in ((piece,) if piece.islower() else _HUMP.split(piece))]  # no capital: no hump


@lru_cache(maxsize=200_000)
def chunk_terms(chunk: str) -> tuple[str, ...]:
    """Terms of one Latin chunk: a plain word's term, or an identifier's whole term then its parts.

    Cached: the snippet of every hit asks for each word of the body."""
    parts = word_parts(chunk)
    if len(parts) == 1:
        term = word_term(parts[0])
        return (term,) if term else ()
    whole = "_".join(p.casefold() for p in parts)
    return (whole, *(t for p in parts if (t := word_term(p, part=True))))


@lru_cache(maxsize=200_000)
def initials(chunk: str) -> frozenset[str]:
    """The letters a term of `chunk_terms(chunk)` can start with, without stemming anything: each
    part's first letter, case-folded, and the base's of a plain word in the word-form table (ate:
    e). A Snowball stem keeps its word's first letter (its steps change the word's end only;
    tests/analysis/test_initials.py checks it on every word of memcli's own sources and docs)."""
    parts = word_parts(chunk)
    found = {p[0].casefold() for p in parts}
    if len(parts) == 1 and (base := BASE.get(parts[0].casefold())):
        found.add(base[0])
    return frozenset(found)


@lru_cache(maxsize=200_000)
def chunk_words(chunk: str) -> tuple[str, ...]:
    """The words of one Latin chunk as the spelling signal keeps them (memcli.search.spelling.words:
    split like word_parts, case-folded, stopwords dropped)."""
    return tuple(folded for p in word_parts(chunk) if (folded := p.casefold()) not in STOPWORDS)


def _typed_terms(chunk: str) -> list[tuple[str, str]]:
    """(term, word as typed, case-folded) of each of chunk_terms(chunk); "" for a whole identifier."""
    parts = word_parts(chunk)
    if len(parts) == 1:
        term = word_term(parts[0])
        return [(term, parts[0].casefold())] if term else []
    typed = [(t, p.casefold()) for p in parts if (t := word_term(p, part=True))]
    return [("_".join(p.casefold() for p in parts), ""), *typed]


def normalize(text: str) -> str:
    """NFKC (full-width Latin, half-width kana) and case-folded."""
    return unicodedata.normalize("NFKC", text).casefold()


def nfkc(text: str) -> str:
    return unicodedata.normalize("NFKC", text)


@lru_cache(maxsize=200_000)
def _piece(found: tuple[str, str]) -> tuple[str, str]:
    """(terms, spelling words) of one TOKEN match (a CJK run or a Latin chunk), space-joined: for a
    chunk, `chunk_terms` and `chunk_words` made from one split into parts (most chunks come here
    once: a record's slug, a number, a path)."""
    cjk, chunk = found
    if cjk:
        return " ".join(bigrams(cjk)), ""
    parts = word_parts(chunk)
    folded = [p.casefold() for p in parts]
    words = " ".join([f for f in folded if f not in STOPWORDS])
    if len(parts) == 1:
        return _word_term(parts[0]) or "", words
    whole = "_".join(folded)
    terms = " ".join(filter(None, map(_part_term, parts)))
    return (f"{whole} {terms}" if terms else whole), words


@lru_cache(maxsize=200_000)
def _word_term(word: str) -> str | None:
    return word_term(word)


@lru_cache(maxsize=200_000)
def _part_term(word: str) -> str | None:
    return word_term(word, part=True)


# The terms and the spelling words of each whitespace-separated piece of text seen, space-joined
# ("" for none): indexing reads a text as its pieces, since no TOKEN match holds whitespace (a word,
# an identifier's separators and a CJK run never do), so the pieces' terms in order are the text's.
# The same pieces ("latency," "`max_retries`") come back in every record: most of a text is never
# matched against TOKEN at all, and the lookups and joins run in C. Entries are only ever added
# (a piece's words before its terms), up to _PIECES_MAX; after that new pieces are not kept.
_TERMS: dict[str, str] = {}
_WORDS: dict[str, str] = {}
_PIECES_MAX = 100_000


def _made(pieces: list[str]) -> tuple[dict[str, str], dict[str, str]]:
    """Terms and words holding every one of `pieces`: the kept ones, or, once they are full, this
    text's own."""
    terms, words = (_TERMS, _WORDS) if len(_TERMS) < _PIECES_MAX else ({}, {})
    for piece in pieces:
        if piece not in terms:
            matches = _token(piece).findall(piece)
            if len(matches) == 1:  # most pieces: one word, one identifier
                terms_of, words_of = _piece(matches[0])
            else:
                found = list(map(_piece, matches))
                terms_of = " ".join(filter(None, map(itemgetter(0), found)))
                words_of = " ".join(filter(None, map(itemgetter(1), found)))
            words[piece] = words_of
            terms[piece] = terms_of
    return terms, words


def index_terms(text: str) -> str:
    """The space-separated terms stored in the FTS table for `text`."""
    pieces = nfkc(text).split()
    try:
        return " ".join(filter(None, map(_TERMS.__getitem__, pieces)))
    except KeyError:  # a piece not seen before
        return " ".join(filter(None, map(_made(pieces)[0].__getitem__, pieces)))


def terms_and_words(text: str) -> tuple[str, str]:
    """`index_terms(text)` and `spelling.words(text)`, from one pass over the text (every word part
    lies in one chunk, so the chunks' words in order are the text's). Indexing a workspace runs
    this over every record."""
    pieces = nfkc(text).split()
    try:
        return (" ".join(filter(None, map(_TERMS.__getitem__, pieces))),
                " ".join(filter(None, map(_WORDS.__getitem__, pieces))))
    except KeyError:  # a piece not seen before
        terms, words = _made(pieces)
        return (" ".join(filter(None, map(terms.__getitem__, pieces))),
                " ".join(filter(None, map(words.__getitem__, pieces))))


def query_groups(query: str) -> list[Group]:
    """The query as groups: one per word or identifier part, one per CJK bigram of each content
    piece (cjk.query_terms); each group can match on its own. A plain lowercase word of a code-word
    family carries its other forms (alternatives); a contraction's first part ("won't") does not.

    Stopwords are dropped unless nothing else is left ("who" alone still searches). At most
    MAX_QUERY_TERMS distinct groups are kept, so a pasted 10 KB query stays fast.
    """
    text = nfkc(query)
    groups: dict[tuple[str, ...], Group] = {}
    for match in _token(text).finditer(text):
        cjk, chunk = match.groups()
        if cjk:
            found = [Group(tuple(g)) for g in query_terms(cjk)]
        else:
            contraction = text.startswith(("'", "’"), match.end())
            alts = alternatives(chunk) if _part(chunk).fullmatch(chunk) and not contraction else ()
            found = [Group((t,), alts, word) for t, word in _typed_terms(chunk)]
        for group in found:
            known = groups.get(group.terms)
            if known is None or len(group.alternatives) > len(known.alternatives):
                groups[group.terms] = group
        if len(groups) >= MAX_QUERY_TERMS:
            break
    if not groups:  # only stopwords: search them as they are
        chunks = [chunk for _, chunk in _token(text).findall(text)]
        words = dict.fromkeys(w.casefold() for chunk in chunks for w in word_parts(chunk))
        return [Group((w,), (), w) for w in list(words)[:MAX_QUERY_TERMS]]
    return list(groups.values())[:MAX_QUERY_TERMS]


def query_phrases(query: str) -> list[list[str]]:
    """The query's CJK runs of 3+ characters as bigram phrases: a record holding a whole run ranks
    above records that only hold its pieces."""
    text = nfkc(query)
    return [bigrams(cjk) for cjk, _ in _token(text).findall(text) if len(cjk) >= 3]


def is_prefix(terms: Sequence[str]) -> bool:
    """A lone CJK character: searched as the prefix of the bigrams (一 finds 一つ)."""
    if len(terms) != 1 or len(terms[0]) != 1:
        return False
    found = _token(terms[0]).match(terms[0])
    return bool(found and found.group(1))


def fts_query(groups: Sequence[Group]) -> str:
    """An FTS5 MATCH expression: the groups OR-ed, each quoted, so no user text is FTS syntax.

    Terms contain only letters, digits and "_" (see TOKEN), so quoting cannot be escaped. A single
    CJK character is a prefix query on the bigrams (一 finds 一つ); a group's alternatives are
    OR-ed with its term.
    """
    parts = []
    for group in groups:
        if is_prefix(group.terms):
            parts.append(f'"{group.terms[0]}"*')
        else:
            parts.append('"' + " ".join(group.terms) + '"')
        parts += [f'"{t}"' for t in group.alternatives]
    return " OR ".join(parts)


def highlight_matchers(query: str) -> tuple[set[str], list[str]]:
    """What the snippet marks: the terms of the query's words, and its CJK content pieces as literal
    substrings (the whole run first, so it is marked as one span where it occurs)."""
    terms: set[str] = set()
    runs: list[str] = []
    text = nfkc(query)
    for cjk, chunk in _token(text).findall(text):
        if cjk:
            runs += [cjk, *(p for p in pieces(cjk) if len(p) >= 2)]
        else:
            terms.update(chunk_terms(chunk))
    return terms, runs
