"""The change summary of a run: counts per outcome, and the commit message that lists every file
touched with its operation, category, reasons and size before → after (information loss is
visible in `git log`).

Reasons the model wrote and staging items' titles are untrusted text (a transcript or a fetched page
may have put them there): they pass the trust filter record content passes
(memcli.tools.policy.withhold) before they are shown, on one line each, so an injected command
never reaches git through the message either.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from memcli.consolidate.gitops import RUN_TRAILER
from memcli.consolidate.scratch import FileChange
from memcli.git.authorship import VOUCHED_TRAILER
from memcli.records.parse import parse_record
from memcli.tools.policy import withhold
from memcli.values import frozen
from memcli.workspace import Kind, locate


@frozen
class FileReport:
    path: str
    outcome: str  # added | updated | replaced | dropped
    categories: tuple[str, ...]
    reasons: tuple[str, ...]
    chars_before: int | None
    chars_after: int | None

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "outcome": self.outcome,
            "categories": list(self.categories),
            "reasons": list(self.reasons),
            "chars_before": self.chars_before,
            "chars_after": self.chars_after,
        }


def _chars(data: bytes | None) -> int | None:
    return None if data is None else len(data.decode("utf-8", "replace"))


def _status(path: str, data: bytes | None) -> str | None:
    loc = locate(path)
    if data is None or loc.kind is not Kind.DECISION:
        return None
    meta = parse_record(path, data, loc.kind, loc.slug).meta
    return str(meta.get("status")) if isinstance(meta, dict) else None


def _outcome(change: FileChange) -> str:
    if change.old is None:
        return "added"
    if change.new is None:
        return "dropped"
    if _status(change.path, change.new) == "replaced" and _status(change.path, change.old) != "replaced":
        return "replaced"
    return "updated"


def file_reports(changes: Iterable[FileChange], journal: Iterable[Any],
                 flagged: Sequence[str] = ()) -> list[FileReport]:
    """One report per changed file; reasons (filtered, `flagged`: the run's untrusted sentences)
    and categories come from the tools' journal."""
    entries = list(journal)
    out = []
    for change in changes:
        mine = [e for e in entries if e.path == change.path]
        categories = tuple(dict.fromkeys(e.category for e in mine if e.category))
        reasons = tuple(dict.fromkeys(f"{e.op} ({e.phase}): {withhold(e.reason, flagged)}"
                                      for e in mine if e.reason))
        out.append(
            FileReport(change.path, _outcome(change), categories, reasons or ("(no reason recorded)",),
                       _chars(change.old), _chars(change.new))
        )
    return out


def counts(reports: Iterable[FileReport]) -> dict[str, int]:
    out = {"added": 0, "updated": 0, "replaced": 0, "dropped": 0}
    for r in reports:
        out[r.outcome] += 1
    return out


def _size(n: int | None) -> str:
    return "-" if n is None else str(n)


REFUSED_TRAILER = "Memcli-Refused-Calls"
SHOWN_REFUSALS = 20


def commit_message(reports: list[FileReport], *, run_id: str, consumed: list[str], stats: str,
                   dropped: Sequence[tuple[Any, Any]] = (), flagged: Sequence[str] = (),
                   refusals: Sequence[dict[str, Any]] = (), vouched: Sequence[str] = ()) -> str:
    c = counts(reports)
    head = (
        f"memcli consolidate: {c['added']} added, {c['updated']} updated, "
        f"{c['replaced']} replaced, {c['dropped']} dropped"
    )
    # The ids name each item's session and range: `memcli why` traces a record back to them.
    used = f": {', '.join(consumed)}." if consumed else "."
    lines = [head, "", f"Consumed {len(consumed)} staging files{used} {stats}", "", "Files:"]
    for r in reports:
        tag = f" [{', '.join(r.categories)}]" if r.categories else ""
        lines.append(f"- {r.outcome} {r.path}{tag} {_size(r.chars_before)} → {_size(r.chars_after)} chars")
        lines.extend(f"    {reason}" for reason in r.reasons)
    if dropped:  # what was not kept, and why: a reviewer sees it without opening the staging files
        lines += ["", f"Dropped staging items ({len(dropped)}):"]
        lines.extend(f"- {item.kind} {withhold(item.title, flagged)!r} ({item.staging_id}): "
                     f"{withhold(d.reason, flagged)}" for item, d in dropped)
    if refusals:  # what the tools stopped (a poisoning attempt, a path outside the records): the
        # tool, the target and the rule; the run record (`memcli status --json`) has each one's reason
        lines += ["", f"Refused tool calls ({len(refusals)}):"]
        lines.extend(f"- {r['tool']} {r.get('path') or '-'}: {r['code']}" for r in refusals[:SHOWN_REFUSALS])
        if len(refusals) > SHOWN_REFUSALS:
            lines.append(f"- and {len(refusals) - SHOWN_REFUSALS} more")
    # the files whose text aimed at agents is the user's own words (memcli.git.authorship)
    lines += ["", f"{REFUSED_TRAILER}: {len(refusals)}", *(f"{VOUCHED_TRAILER}: {p}" for p in vouched),
              f"{RUN_TRAILER}: {run_id}", ""]
    return "\n".join(lines)
