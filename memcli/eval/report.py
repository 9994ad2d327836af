"""What `memcli eval` prints: the summary, a row per repetition, the uncovered ones; or JSON."""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.table import Table

from memcli.eval.evaluate import Repetition, Report
from memcli.tables import print_table

if TYPE_CHECKING:
    from memcli.eval.stage import Staged

SCHEMA = "memcli.eval"


def repetition_id(rep: Repetition) -> str:
    """Stable while its first occurrence stays first: `r-` and 8 hex digits."""
    first = rep.occurrences[0]
    key = f"{first.session_id}\0{first.start}\0{first.text}"
    return "r-" + hashlib.sha1(key.encode("utf-8")).hexdigest()[:8]


def summary(report: Report) -> dict[str, int]:
    repeats = [r for rep in report.repetitions for r in rep.repeats]
    return {
        "repeated": len(report.repetitions),
        "repeats": len(repeats),
        "covered_at_time": sum(1 for r in repeats if r.held_before),
        "unknown_at_time": sum(1 for r in repeats if r.held_before is None),
        "reached": sum(1 for r in repeats if r.reached),
        "covered_now": sum(1 for rep in report.repetitions if rep.covered_now),
        "uncovered": sum(1 for rep in report.repetitions if not rep.covered_now),
    }


def _time(value: Any) -> str | None:
    return value.isoformat() if value is not None else None


def to_json(report: Report, staged: Staged | None = None) -> dict[str, Any]:
    reps = []
    for rep in report.repetitions:
        reps.append({
            "id": repetition_id(rep), "kind": rep.kind, "text": rep.text, "sessions": rep.sessions,
            "covered_now": rep.covered_now, "covered_by": list(rep.covered_by),
            "occurrences": [{"session_id": o.session_id, "agent": o.agent, "range": [o.start, o.end],
                             "time": _time(o.time), "text": o.text} for o in rep.occurrences],
            "repeats": [{"session_id": r.session_id, "time": _time(r.time), "commit": r.commit,
                         "held_before": r.held_before, "held_by": list(r.held_by), "reached": r.reached,
                         "query": r.query} for r in rep.repeats],
        })
    doc: dict[str, Any] = {
        "schema": SCHEMA, "version": 1, "sessions": report.sessions, "statements": report.statements,
        "directives": report.directives, "summary": summary(report), "notes": report.notes,
        "repetitions": reps,
        "uncovered": [repetition_id(rep) for rep in report.repetitions if not rep.covered_now],
    }
    if staged is not None:
        doc["staged"] = {"new": list(staged.new), "already": staged.already}
    return doc


def render_json(report: Report, staged: Staged | None = None) -> str:
    return json.dumps(to_json(report, staged), ensure_ascii=False, indent=2)


def _count(held: int, total: int) -> str:
    return f"{held}/{total}" if total else "-"


def render_text(report: Report, console: Console, staged: Staged | None = None) -> None:
    s = summary(report)

    def out(text: str, **kw: Any) -> None:
        console.print(text, soft_wrap=True, **kw)  # one line each, not wrapped at 80 columns
    out(f"memcli eval: {report.sessions} sessions, {report.statements} user statements, "
        f"{report.directives} instructions, corrections or preferences", highlight=False)
    for note in report.notes:
        out(f"note: {note}", highlight=False)
    if not report.repetitions:
        out("No instruction was given in two or more sessions.", highlight=False)
        _staged(console, staged)
        return
    unknown = f" ({s['unknown_at_time']} unknown)" if s["unknown_at_time"] else ""
    plural = "" if s["repeats"] == 1 else "s"
    out(f"Repeated instructions: {s['repeated']}, said again in {s['repeats']} later session{plural}\n"
        f"  covered at the time:  {s['covered_at_time']} of {s['repeats']} repeats{unknown}\n"
        f"  reached the agent:    {s['reached']} of {s['repeats']} repeats\n"
        f"  covered now:          {s['covered_now']} of {s['repeated']}", highlight=False)
    table = Table(box=None, pad_edge=False)
    headers = ["id", "kind", "sessions", "before", "reached", "now", "instruction"]
    for name in headers:
        table.add_column(name, overflow="fold" if name == "instruction" else "ellipsis",
                         no_wrap=name != "instruction")
    rows = []
    for rep in report.repetitions:
        known = [r for r in rep.repeats if r.held_before is not None]
        rows.append((repetition_id(rep), rep.kind, str(rep.sessions),
                     _count(sum(1 for r in known if r.held_before), len(known)),
                     _count(sum(1 for r in rep.repeats if r.reached), len(rep.repeats)),
                     "yes" if rep.covered_now else "no", rep.text))
    for row in rows:
        table.add_row(*row)
    print_table(console, table, headers, rows)
    uncovered = [rep for rep in report.repetitions if not rep.covered_now]
    if uncovered:
        out(f"\nNot in the memory now ({len(uncovered)}):", highlight=False)
        for rep in uncovered:
            where = ", ".join(dict.fromkeys(f"{o.session_id}:{o.start}" for o in rep.occurrences))
            out(f"- {rep.text}  [{where}]", highlight=False, markup=False)
        if staged is None:
            out("(`memcli eval --stage` stages them for the next consolidation)", highlight=False)
    _staged(console, staged)


def _staged(console: Console, staged: Staged | None) -> None:
    if staged is None:
        return
    already = f"; {staged.already} staged before" if staged.already else ""
    console.print(f"Staged {len(staged.new)} new item(s) in memory/_staging/{already}.", highlight=False,
                  soft_wrap=True)
