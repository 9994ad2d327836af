"""The ASCII patterns of memcli.analysis.text find, on ASCII text, exactly what the CJK-aware ones
find; text that is not ASCII still goes through the CJK-aware ones, compiled only then."""

from __future__ import annotations

import random
import re
import string
import subprocess
import sys

from memcli.analysis import text

ALPHABET = string.ascii_letters + string.digits + "_._/-- '\t\n!?#@:;,()[]`\"\\*+=~$%^&|<>{}"


def _samples(n: int) -> list[str]:
    rng = random.Random(39)
    return ["".join(rng.choice(ALPHABET if i % 2 else ALPHABET[:70]) for _ in range(rng.randint(0, 60)))
            for i in range(n)] + ["max_retries os.path.join v1.2.3 --include-replaced maxRetries",
                                  "a_b-c/d.e", "_x_", "-", "...a..b", "it's", "don't", "LEDs PRs HTTP2"]


def test_on_ascii_text_the_ascii_patterns_find_what_the_cjk_aware_ones_find() -> None:
    token, part = re.compile(text.TOKEN), re.compile(text.PART)
    for sample in _samples(3000):
        assert sample.isascii()
        assert text._ASCII_TOKEN.findall(sample) == token.findall(sample), sample
        spans = [m.span() for m in token.finditer(sample)]
        assert [m.span() for m in text._ASCII_TOKEN.finditer(sample)] == spans
        assert text._ASCII_PART.findall(sample) == part.findall(sample), sample
        assert bool(text._ASCII_PART.fullmatch(sample)) == bool(part.fullmatch(sample))


def test_text_that_is_not_ascii_is_read_by_the_cjk_aware_patterns() -> None:
    assert text.index_terms("日本語の search café") == "日本 本語 語の search café"
    assert [g.terms for g in text.query_groups("データベース backup")] == [
        ("デー",), ("ータ",), ("タベ",), ("ベー",), ("ース",), ("backup",)]
    assert text.word_parts("naïveCase über_x") == ["naïve", "Case", "über", "x"]


def test_an_ascii_query_compiles_no_cjk_aware_pattern() -> None:
    probe = ("from memcli.analysis import text; "
             "text.query_groups('sqlite backup'); text.highlight_matchers('max_retries'); "
             "text.query_phrases('wal'); text.word_parts('fooBar'); text.index_terms('v1.2 ok'); "
             "assert text._unicode.cache_info().currsize == 0; "
             "text.query_groups('設定'); assert text._unicode.cache_info().currsize == 1")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
