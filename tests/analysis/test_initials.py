"""text.initials: every term a word gives starts with one of its initials, so the snippet may skip
stemming the words whose initials no query term starts with (memcli.search.snippet)."""

from __future__ import annotations

import re
from pathlib import Path

from memcli.analysis import text
from memcli.analysis.irregular import BASE

REPO = Path(__file__).resolve().parents[2]


def _words() -> set[str]:
    found: set[str] = set()
    for path in [*REPO.glob("memcli/**/*.py"), *REPO.glob("docs/**/*.md"), REPO / "README.md"]:
        found.update(re.findall(r"[^\W_]+", path.read_text(encoding="utf-8")))
    return {w for w in found if w.isascii()}


def test_every_term_of_a_word_starts_with_one_of_its_initials() -> None:
    words = _words() | set(BASE) | {w.capitalize() for w in BASE} | {
        "dying", "lying", "tying", "skies", "skis", "idly", "gently", "ugly", "early", "only", "singly",
        "yelling", "Yes", "ies", "ied", "LEDs", "PRs", "HTTP2", "maxRetries", "getHTTPResponse", "x2y"}
    assert len(words) > 5000
    for word in words:
        starts = text.initials(word)
        terms = text.chunk_terms(word)
        assert all(term[0] in starts for term in terms), (word, terms, starts)


def test_a_word_of_the_word_form_table_may_start_as_its_base() -> None:
    assert text.initials("ate") == {"a", "e"} and text.chunk_terms("ate") == ("eat",)
    assert text.initials("maxRetries") == {"m", "r"}
