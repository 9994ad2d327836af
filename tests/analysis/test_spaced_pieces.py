"""Indexing reads a text as its whitespace-separated pieces, each tokenized once and cached: the
terms and spelling words are exactly those of matching TOKEN over the whole text, whatever the
whitespace (tabs, no-break and ideographic spaces, line and paragraph separators, control
separators) and wherever it falls (inside an identifier, between CJK characters, around
punctuation)."""

from __future__ import annotations

import random
import re
import sys
from operator import itemgetter

from memcli.analysis import text

WHITESPACE = "".join(c for c in map(chr, range(sys.maxunicode + 1)) if c.isspace())
ALPHABET = ("aZq9_._/--'`\"()[]:,!?#ßİﬁＡ％ＴＳ、。・゛ー日本語設定한국어データベース"
            "maxRetries os.path v1.2 LEDs don't " + WHITESPACE)


def _match(found: tuple[str, str]) -> tuple[str, str]:
    """(terms, words) of one TOKEN match, by the public functions the snippets and queries use."""
    cjk, chunk = found
    if cjk:
        return " ".join(text.bigrams(cjk)), ""
    return " ".join(text.chunk_terms(chunk)), " ".join(text.chunk_words(chunk))


def _whole(sample: str) -> tuple[str, str]:
    """The terms and words as TOKEN finds them over the whole text (what indexing did before)."""
    sample = text.nfkc(sample)
    pieces = [_match(m) for m in re.compile(text.TOKEN).findall(sample)]
    return (" ".join(filter(None, map(itemgetter(0), pieces))),
            " ".join(filter(None, map(itemgetter(1), pieces))))


def _samples(n: int) -> list[str]:
    rng = random.Random(40)
    return ["".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 80))) for _ in range(n)]


def test_whitespace_characters_are_never_part_of_a_token() -> None:
    token = re.compile(text.TOKEN)
    assert len(WHITESPACE) > 20  # tab, newline, \x1c-\x1f, \x85, U+2028, U+3000 ...
    for space in WHITESPACE:
        assert all(space not in found for groups in token.findall(f"a{space}b 日{space}本")
                   for found in groups), hex(ord(space))


def test_terms_and_words_by_piece_are_those_of_the_whole_text() -> None:
    for sample in [*_samples(4000), "max_retries,\u2028os.path.join\u3000日本語の設定\xa0LEDs\x1cdon't"]:
        assert text.terms_and_words(sample) == _whole(sample), ascii(sample)
        assert text.index_terms(sample) == _whole(sample)[0], ascii(sample)


def test_a_repeated_piece_is_tokenized_once(monkeypatch) -> None:
    monkeypatch.setattr(text, "_TERMS", {})
    monkeypatch.setattr(text, "_WORDS", {})
    made = []
    real = text._token
    monkeypatch.setattr(text, "_token", lambda piece: made.append(piece) or real(piece))
    assert text.terms_and_words("latency, latency, latency, `max_retries`") == (
        "latenc latenc latenc max_retries max retri", "latency latency latency max retries")
    assert text.index_terms("`max_retries` latency,") == "max_retries max retri latenc"
    assert made == ["latency,", "`max_retries`"]


def test_once_the_kept_pieces_are_full_a_text_is_still_read_whole(monkeypatch) -> None:
    monkeypatch.setattr(text, "_TERMS", {})
    monkeypatch.setattr(text, "_WORDS", {})
    monkeypatch.setattr(text, "_PIECES_MAX", 2)
    assert text.index_terms("alpha beta") == "alpha beta"
    assert text.terms_and_words("gamma alpha delta,") == ("gamma alpha delta", "gamma alpha delta")
    assert set(text._TERMS) == {"alpha", "beta"}  # full: gamma and delta were made, not kept


def test_a_match_s_terms_and_words_are_made_from_one_split_as_the_public_functions_make_them() -> None:
    rng = random.Random(41)
    letters = "aAzZ09_./-ßİıǅΣςﬁＡ日本語한"
    chunks = ["".join(rng.choice(letters) for _ in range(rng.randint(1, 14))) for _ in range(20000)]
    chunks += ["maxRetries", "HTTPServer", "LEDs", "the", "a-the-of", "os.path.join", "v1.2.3", "ǅungla"]
    for chunk in chunks:
        for found in re.compile(text.TOKEN).findall(text.nfkc(chunk)):
            assert text._piece(found) == _match(found), ascii(found)


def test_a_word_without_a_capital_has_no_hump() -> None:
    hump = re.compile(r"(?<=[a-z])(?=[A-Z])")
    rng = random.Random(42)
    letters = "abzABZ09ßİıǅǈΣσςﬁ_."
    for sample in ["".join(rng.choice(letters) for _ in range(rng.randint(1, 10))) for _ in range(20000)]:
        part = re.compile(text.PART)
        assert text.word_parts(sample) == [p for w in part.findall(sample) for p in hump.split(w)], sample
