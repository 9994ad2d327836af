"""A symbol anchor is looked for as a whole word without a regex per symbol (memcli.anchors): the
search, the word set and the checker give the answers the per-symbol regex gave, on identifiers,
CJK, digits of other scripts and symbols holding regex metacharacters."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memcli.anchors import AnchorChecker, has_symbol, is_word, words_of
from memcli.records.anchors import Anchor


def per_symbol_regex(text: str, symbol: str) -> bool:
    """The check as it was: one regex per symbol."""
    return re.search(rf"(?<![\w]){re.escape(symbol)}(?![\w])", text) is not None


# word characters of several scripts (Latin, CJK, kana, Arabic-Indic and superscript digits, a
# Roman numeral, a combining mark) and non-word ones, regex metacharacters among them
ALPHABET = "ab_Z09関数処理かナ٣²Ⅻ\u0301" + " .,:;()[]{}*+?^$|\\-=<>/\t\n\ufffd"

CASES = [
    ("def run_pending():", "run_pending", True),
    ("def run_pending_all():", "run_pending", False),
    ("x = prerun_pending", "run_pending", False),
    ("run_pending", "run_pending", True),
    ("def 処理する(): pass", "処理する", True),
    ("この関数は", "関数", False),  # CJK letters are word characters: no word boundary inside
    ("関数 = 1", "関数", True),
    ("a.b(c) + x", "b(c)", True),
    ("ab(c)", "b(c)", False),
    ("x = a+b*c", "a+b*c", True),
    ("x = aa+b*c", "a+b*c", False),
    ("[^$]", "[^$]", True),
    ("q\\d+", "\\d+", False),  # the q before it is a word character
    ("q \\d+", "\\d+", True),
    ("f٣ = 1", "f", False),  # an Arabic-Indic digit is a word character
    ("f² = 1", "f", False),
    ("f\u0301 = 1", "f", True),  # a combining mark is not
    ("", "", True),
    ("abc", "", False),
    ("a b", "", False),
    ("a  b", "", True),
    ("", "a", False),
    ("x.y.z", "y.z", True),
    ("x.y.z", "x.y", True),
]


@pytest.mark.parametrize(("text", "symbol", "expected"), CASES)
def test_search_and_word_set_agree_with_the_per_symbol_regex(text: str, symbol: str, expected: bool) -> None:
    assert per_symbol_regex(text, symbol) is expected  # the table says what the old check said
    assert has_symbol(text, symbol) is expected
    if is_word(symbol):
        assert (symbol in words_of(text)) is expected


@settings(max_examples=400, deadline=None)
@given(text=st.text(alphabet=ALPHABET, max_size=40), start=st.integers(0, 40), size=st.integers(0, 6),
       other=st.text(alphabet=ALPHABET, max_size=4))
def test_generated_texts_and_symbols(text: str, start: int, size: int, other: str) -> None:
    # symbols cut from the text itself (so most are found somewhere) and free ones
    for symbol in (text[start:start + size], other):
        expected = per_symbol_regex(text, symbol)
        assert has_symbol(text, symbol) is expected
        if is_word(symbol):
            assert (symbol in words_of(text)) is expected


def test_the_checker_answers_many_symbols_of_one_file_as_the_regex_does(tmp_path: Path) -> None:
    # one file asked for many symbols: the first is searched, the rest looked up in its word set
    text = ("def run_pending():\n    関数 = 処理(a+b*c)\n    return x.y.z + prerun_all\n"
            "class Job[^$]: ...\n# この関数は\n")
    (tmp_path / "code.py").write_text(text, encoding="utf-8")
    symbols = ["run_pending", "run", "prerun_all", "関数", "処理", "この関数は", "関", "a+b*c", "b*c",
               "x.y", "y.z", "[^$]", "Job", "Jo", "def", "missing_name", "y", "pending"]
    checker = AnchorChecker(tmp_path)
    issues = checker.check_many([[Anchor("code.py", s)] for s in symbols])
    missing = {s for s, found in zip(symbols, issues, strict=True) if found}
    assert missing == {s for s in symbols if not per_symbol_regex(text, s)}
    assert missing == {"run", "関", "[^$]", "Jo", "missing_name", "pending"}
    assert all(found[0].status == "symbol-missing" for found in issues if found)
