"""Replaced decisions in a ranking: shown when the query is about them, always below their replacement.

A replaced decision is history ("what did we use before Postgres?"), not the current answer. It is
a candidate like any record, then:
* by default it is kept only when it is about the query — it holds at least half of the query's
  groups (ABOUT) — or when it is the best match of all: a question about the past ("how did we
  send reminders before we changed it") may share one word of four with the decision it asks
  about and none with anything else, and hiding that decision would answer nothing.
  `--include-replaced` keeps every replaced decision that matches at all;
* it always ranks below the decision that replaced it (its score is capped at BELOW × the
  replacement's), following chains (a → b → c ranks c, b, a); when the replacement is not among the
  hits its score is halved, so a current record that matches as well comes first;
* the hit carries `status: replaced` and `replaced_by`, which the table and JSON show.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memcli.analysis.text import Group

ABOUT = 0.5
BELOW = 0.9
ALONE = 0.5


def coverage(words: list[str], groups: Sequence[Group]) -> float:
    """Share of the query's groups the record holds (as written or in another form)."""
    present = set(words)
    return sum(g.held(present) for g in groups) / max(len(groups), 1)


def demote(conn: sqlite3.Connection, scores: dict[int, float], terms: dict[int, list[str]],
           groups: Sequence[Group], paths: Mapping[int, str], *, keep_all: bool) -> None:
    """Drop replaced decisions the query is not about (unless keep_all, or it is the best match),
    rank the rest below their replacements (in place; `paths` order equal scores)."""
    ids = list(scores)
    replaced: dict[int, str] = {}
    for i in range(0, len(ids), 500):
        chunk = ids[i : i + 500]
        marks = ",".join("?" * len(chunk))
        rows = conn.execute(f"SELECT id, replaced_by FROM docs WHERE id IN ({marks}) AND status = 'replaced'",
                            chunk)
        replaced.update((doc_id, by or "") for doc_id, by in rows)
    if not replaced:
        return
    best = min(scores, key=lambda d: (-scores[d], paths[d]))  # the first hit as the ranking orders them
    for doc_id in list(replaced):
        if not keep_all and doc_id != best and coverage(terms.get(doc_id, []), groups) < ABOUT:
            del scores[doc_id]
            del replaced[doc_id]
    wanted = sorted(set(replaced.values()))
    slugs = dict(conn.execute(
        f"SELECT slug, id FROM docs WHERE type = 'decision' AND slug IN ({','.join('?' * len(wanted))})",
        wanted).fetchall())
    # longest chains first need their replacement settled: repeat until nothing moves (≤ chain length)
    for doc_id in replaced:
        if slugs.get(replaced[doc_id]) not in scores:
            scores[doc_id] *= ALONE
    for _ in range(len(replaced)):
        moved = False
        for doc_id, by in replaced.items():
            cap = scores.get(slugs.get(by, -1))
            if cap is not None and scores[doc_id] > BELOW * cap:
                scores[doc_id] = BELOW * cap
                moved = True
        if not moved:
            break
