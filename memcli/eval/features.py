"""What a statement is made of, for matching: code tokens, words, glossary concepts, CJK bigrams.

Each feature has a base weight by what it is — an identifier, a path, a flag or anything in
backticks (CODE) outweighs a word (WORD), which outweighs one CJK bigram (CJK; a Japanese word
gives several) — and detect.py multiplies it by how rare the feature is in the history (idf).

* Latin words are search terms (memcli.analysis.text: case-folded, stopwords dropped, stemmed), or
  the glossary concept they belong to (lexicon.py), so "tests" and テスト are one feature.
* An identifier — words joined by `_ . / - :` or camelCase humps (max_retries, maxRetries,
  src/app.py, --no-git) — is one feature, its parts spelled the same way whatever the joiner
  (max_retries ≡ maxRetries ≡ max-retries), plus its parts as words at half weight.
* A CJK run: glossary words first (使って → USE), the rest as bigrams of its kanji/katakana pieces
  (memcli.analysis.cjk); hiragana (particles, inflections) carries no feature.
* Acknowledgements and nudges ("thanks", "continue", 「続けて」) carry no feature at all.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from memcli.analysis.cjk import CJK_CHARS, bigrams, pieces
from memcli.analysis.text import word_parts, word_term
from memcli.eval import lexicon
from memcli.values import frozen

CODE = 2.0
WORD = 1.0
PART = 0.5
CJK = 0.6

_W = rf"[^\W_{CJK_CHARS}]"
_TOKEN = re.compile(rf"`([^`\n]{{1,200}})`|([{CJK_CHARS}]+)|((?:--?|~?/|\.)?{_W}+(?:[._/\-:@]+{_W}+)*)")
_COMPOUND = re.compile(r"[a-z]+(?:-[a-z]+)+")
_NOT = re.compile(r"\b(?:(won)|(can)|(\w+))n['’]t\b", re.IGNORECASE)
_HIRAGANA = re.compile(r"^[\u3040-\u309f]+$")


@frozen
class Features:
    weights: dict[str, float]  # feature → base weight
    content: bool  # holds something besides function words (an instruction about something)


def _expand_not(text: str) -> str:
    """don't → do not, won't → will not, can't → can not: "not" is then a word of its own."""
    def repl(m: re.Match[str]) -> str:
        return "will not" if m.group(1) else "can not" if m.group(2) else f"{m.group(3)} not"

    return _NOT.sub(repl, text)


@lru_cache(maxsize=1)
def _generic_terms() -> frozenset[str]:
    return frozenset({*lexicon.GENERIC_EN, *(t for w in lexicon.GENERIC_EN if (t := word_term(w)))})


def word_id(word: str) -> str | None:
    """The feature of one word: its glossary concept, else its search term; None for a stopword
    or a word that says nothing on its own."""
    lower = word.casefold()
    if lower in _generic_terms():
        return None
    concepts = lexicon.english()
    concept = concepts.get(lower)
    if concept is not None:
        return concept
    term = word_term(word)
    if term is None or term in _generic_terms():
        return None
    return concepts.get(term, term)


def _word(word: str, out: dict[str, float], weight: float) -> None:
    feature = word_id(word)
    if feature is not None:
        out[feature] = max(out.get(feature, 0.0), weight)


def _latin(chunk: str, code: bool, out: dict[str, float]) -> None:
    parts = word_parts(chunk)
    if not parts:
        return
    flag = chunk.startswith(("-", "/", "~", "."))
    # force-push, f-strings, one-liner: English compounds, read as their words
    compound = not code and not flag and _COMPOUND.fullmatch(chunk) is not None
    if compound or (len(parts) == 1 and not code and not flag):
        for part in parts:
            _word(part, out, WORD)
        return
    if len(parts) > 1:
        whole = "_".join(p.casefold() for p in parts)
        out[whole] = max(out.get(whole, 0.0), CODE)
        for part in parts:
            _word(part, out, PART)
    else:
        feature = word_id(parts[0]) or parts[0].casefold()
        out[feature] = max(out.get(feature, 0.0), CODE)


def _cjk(run: str, out: dict[str, float]) -> None:
    for word, concept in lexicon.japanese():
        if word in run:
            out[concept] = max(out.get(concept, 0.0), WORD)
            run = run.replace(word, " ")
    for word in lexicon.GENERIC_JA:
        run = run.replace(word, " ")
    for sub in run.split():
        for piece in pieces(sub):
            if _HIRAGANA.match(piece):
                continue
            for gram in bigrams(piece):
                out[gram] = max(out.get(gram, 0.0), CJK)


def _ticked(code: str, out: dict[str, float]) -> None:
    """Backticked text is code: one token as an identifier, a command line (`make test`,
    `git push --force`) as one feature of all its words, with each word as a part."""
    chunks = [c for _, cjk, c in _TOKEN.findall(code) if c]
    for _, cjk, _ in _TOKEN.findall(code):
        if cjk:
            _cjk(cjk, out)
    if len(chunks) == 1:
        _latin(chunks[0], True, out)
    elif chunks:
        whole = "_".join(p.casefold() for c in chunks for p in word_parts(c))
        out[whole] = max(out.get(whole, 0.0), CODE)
        for chunk in chunks:
            for part in word_parts(chunk):
                _word(part, out, PART)


def features(text: str) -> Features:
    """The features of one statement."""
    text = _expand_not(unicodedata.normalize("NFKC", text))
    out: dict[str, float] = {}
    for ticked, cjk, chunk in _TOKEN.findall(text):
        if ticked:
            _ticked(ticked, out)
        elif cjk:
            _cjk(cjk, out)
        else:
            _latin(chunk, False, out)
    function = lexicon.function_concepts()
    return Features(out, any(f not in function for f in out))


def passages(text: str, limit: int = 400) -> list[str]:
    """A record's text cut where a reader would: each line or list item, and each two adjacent ones
    (a rule and its reason are often two lines), at most `limit` characters each (a longer line is
    cut at sentence ends)."""
    lines: list[str] = []
    for line in text.splitlines():
        line = line.strip().lstrip("-*#>• ").strip()
        if not line:
            continue
        while len(line) > limit:
            cut = max(line.rfind(". ", 0, limit), line.rfind("。", 0, limit))
            cut = cut + 1 if cut > limit // 4 else limit
            lines.append(line[:cut].strip())
            line = line[cut:].strip()
        if line:
            lines.append(line)
    pairs = [f"{a}\n{b}" for a, b in zip(lines, lines[1:], strict=False) if len(a) + len(b) < limit]
    return lines + pairs
