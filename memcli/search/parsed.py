"""The query, analysed once: one frozen `Query` that ranking, typo correction, spelling, the slug
match, the meaning search and every hit's snippet read, instead of each cutting the raw text again.

    q = Query.parse("timzone handling")
    q.groups    # what is searched: one Group per word or identifier part, per CJK bigram (text.Group)
    q.factors   # each group's weight factor: 1, or typos.TYPO_WEIGHT for a corrected word
    q.phrases   # CJK runs of 3+ characters as bigram phrases (an exact run ranks on top)
    q.marked    # the terms a snippet marks; q.runs: CJK pieces it marks as substrings
    q.words     # the words the spelling signal cuts into 4-grams (spelling.words)
    q.slug      # the query written as a slug (the typo-tolerant slug match)
    q.text      # as typed: what an embedding model reads

A typo correction (memcli.search.typos) gives a new Query through `corrected()`: the groups as
searched change, the text does not, and the corrected terms are marked in snippets too.

(The module is not `query.py`: that is the query service, which opens the index, and the index's
ranking reads this value; one module for both would import itself back.)
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from memcli.analysis.text import Group, highlight_matchers, normalize, query_groups, query_phrases
from memcli.search.spelling import words as spelling_words
from memcli.values import frozen

_NON_SLUG = re.compile(r"[^\w]+")


@frozen
class Query:
    text: str
    groups: tuple[Group, ...]
    factors: tuple[float, ...]
    phrases: tuple[tuple[str, ...], ...]
    marked: frozenset[str]
    runs: tuple[str, ...]
    words: tuple[str, ...]
    slug: str

    @classmethod
    def parse(cls, text: str) -> Query:
        groups = tuple(query_groups(text))
        marked, runs = highlight_matchers(text)
        return cls(
            text=text, groups=groups, factors=(1.0,) * len(groups),
            phrases=tuple(tuple(p) for p in query_phrases(text)),
            marked=frozenset(marked), runs=tuple(runs),
            words=tuple(spelling_words(text).split()),
            slug=_NON_SLUG.sub("-", normalize(text)).strip("-"),
        )

    def corrected(self, groups: Sequence[Group], factors: Sequence[float]) -> Query:
        """This query searching `groups` at `factors` instead (one per group); their terms are
        marked in snippets beside the words as typed."""
        added = {t for g in groups if g not in self.groups for t in g.terms}
        return replace(self, groups=tuple(groups), factors=tuple(factors), marked=self.marked | added)
