"""The trust patterns are looked for only in text that holds each pattern's words (provenance's
_Screened): every text a pattern matches holds them, so screening never hides a match — checked on
text generated from each pattern itself, in every case the pattern accepts, and on text mixed from
the patterns' words."""

from __future__ import annotations

import re
import string
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memcli import provenance

SCREENED = {"instruction": provenance._INSTRUCTION, "command": provenance._COMMAND,
            "ja-command": provenance._JA_COMMAND, "fetch": provenance._FETCH}
PATTERNS = [(name, n, pattern) for name, screened in SCREENED.items()
            for n, (pattern, _) in enumerate(screened.patterns)]


def test_every_character_ignorecase_reads_as_an_ascii_letter_is_lowered_as_that_letter() -> None:
    for cp in range(0x80, sys.maxunicode + 1):
        ch = chr(cp)
        for letter in string.ascii_lowercase:
            if re.fullmatch(letter, ch, re.IGNORECASE):
                assert provenance._AS_ASCII.get(cp) == letter, hex(cp)


@pytest.mark.parametrize(("name", "n", "pattern"), PATTERNS, ids=[f"{name}-{n}" for name, n, _ in PATTERNS])
def test_what_a_pattern_matches_holds_its_words(name: str, n: int, pattern: re.Pattern[str]) -> None:
    screened = SCREENED[name]

    @settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(st.from_regex(pattern), st.sampled_from(["", "İ", "ı", "ſ", "K", "Ｘ", "日本"]))
    def check(text: str, odd: str) -> None:
        for sample in (text, odd + text, text.upper(), text.title()):
            if pattern.search(sample):
                assert screened.found(sample), ascii(sample)

    check()


EXTRA = {"previous", "your", "you", "the", "as", "to", "into", "project", "bash", "sh", "curl", "https://x.io",
         "instructions", "immediately", "each", "commit", "-d", "の", "を", "に", "として", "ない", "前",
         "すべて", "之前", "指令", "常に", "して", "言わ", "AI", "ignore", "rules", "run", "before every"}
NEEDED = {w for screened in SCREENED.values() for _, needs in screened.patterns for g in needs for w in g}
WORDS = sorted(NEEDED | EXTRA)


@settings(max_examples=3000, deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(st.lists(st.tuples(st.sampled_from(WORDS), st.sampled_from(["lower", "upper", "title", "turkish"]),
                          st.sampled_from([" ", "  ", "", ": ", " | ", ". ", "\n", "、"])), max_size=12))
def test_mixed_from_the_patterns_words_screening_finds_what_the_patterns_find(parts) -> None:
    cased = {"lower": str.lower, "upper": str.upper, "title": str.title,
             "turkish": lambda w: w.replace("i", "ı").replace("I", "İ")}
    text = "".join(cased[case](word) + gap for word, case, gap in parts)
    for screened in SCREENED.values():
        assert screened.found(text) == any(p.search(text) for p, _ in screened.patterns), ascii(text)
