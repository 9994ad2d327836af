"""The record-level GC checks: the Linter's bloat warnings, stale records, long-replaced decisions,
unreferenced knowledge. Each takes parsed records and returns candidates; none reads the disk."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from typing import TYPE_CHECKING

from memcli.gc.model import Candidate
from memcli.lint.finding import Finding

if TYPE_CHECKING:
    from memcli.gc.facts import GcFacts

BLOAT_CODES = ("similar-slugs", "sources-overflow", "low-value-large", "replaced-chain-long")

def bloat_candidates(findings: Iterable[Finding]) -> list[Candidate]:
    """The Linter's bloat warnings as candidates (the Linter stays the one place that computes them)."""
    return [
        Candidate(f.code, (f.path,), f.message, {"lint_code": f.code, "line": f.line})
        for f in findings
        if f.code in BLOAT_CODES
    ]


def _age_days(now: dt.datetime, then: dt.datetime) -> int:
    return (now - then).days


def stale_candidates(records: Iterable[GcFacts], now: dt.datetime, stale_days: int) -> list[Candidate]:
    """Valid records whose `updated_at` is more than `stale_days` old (replaced decisions excluded:
    `replaced-long` covers them)."""
    out = []
    for rec in records:
        if rec.status == "replaced":  # only decisions have a status
            continue
        updated = rec.updated
        age = _age_days(now, updated)
        if age > stale_days:
            out.append(
                Candidate(
                    "stale",
                    (rec.path,),
                    f"not updated for {age} days (more than {stale_days}); check it still holds, "
                    "then update or drop it",
                    {"updated_at": updated.isoformat(), "age_days": age, "stale_days": stale_days},
                )
            )
    return out


def replaced_candidates(records: Iterable[GcFacts], now: dt.datetime, replaced_days: int) -> list[Candidate]:
    """Decisions in `status: replaced` for more than `replaced_days` (by `updated_at`, which the
    replacement sets)."""
    out = []
    for rec in records:
        if rec.status != "replaced":
            continue
        updated = rec.updated
        age = _age_days(now, updated)
        if age > replaced_days:
            out.append(
                Candidate(
                    "replaced-long",
                    (rec.path,),
                    f"replaced by {rec.replaced_by!r} {age} days ago (more than {replaced_days}); "
                    "fold what still matters into the newer decision and trim this one",
                    {"replaced_by": rec.replaced_by, "updated_at": updated.isoformat(),
                     "age_days": age, "replaced_days": replaced_days},
                )
            )
    return out


def unreferenced_candidates(
    knowledge: dict[str, str], references: Iterable[Iterable[str]], resident: set[str]
) -> list[Candidate]:
    """Knowledge (slug → path) that no other record names (`references`: the `referenced_slugs` of
    every readable record, memcli.gc.facts) and that `memcli context` does not show."""
    referenced: set[str] = set()
    for slugs in references:
        referenced.update(slugs)
    return [
        Candidate(
            "unreferenced-knowledge",
            (path,),
            "no record names it and it is not in the resident index (`memcli context`); link it "
            "from where it applies, set model_invocation: true, or drop it",
            {"slug": slug},
        )
        for slug, path in sorted(knowledge.items())
        if slug not in referenced and slug not in resident
    ]
