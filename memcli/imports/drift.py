"""Has a document changed under a Source since it was imported? (`memcli why` says so.)

A transcript only grows, so a Source's lines say forever what they said. A document is edited:
lines a..b may hold other text now, or the imported text may sit further down. The import ledger
knows what each imported block said (its fingerprint) and where it was; comparing that with the
file as it is now tells "unchanged", "moved to lines c..d" or "changed since it was imported".
"""

from __future__ import annotations

from pathlib import Path

from memcli.agents.documents.discovery import Found
from memcli.agents.documents.ledger import Ledger
from memcli.imports.plan import read_pieces
from memcli.transcript.base import SessionReadError


def note(state_dir: Path, source: Found, span: tuple[int, int], root: Path) -> str | None:
    """One line when the blocks imported within `span` no longer read the same there; else None
    (unchanged, or nothing recorded: imported on another machine, or never by `memcli import`)."""
    ledger = Ledger.open(state_dir)
    recorded = [(c.time, a, b, fp) for c in ledger.chunks(source.id) for a, b, fp in c.blocks
                if span[0] <= a and b <= span[1]]
    if not recorded:
        return None
    try:
        _selection, pieces = read_pieces(source, root)
    except SessionReadError:
        return None
    at = {(p.start, p.end): p.fp for p, _n in pieces}
    now = {p.fp: (p.start, p.end) for p, _n in pieces}
    changed = [(time, a, b, fp) for time, a, b, fp in recorded if at.get((a, b)) != fp]
    if not changed:
        return None
    moved = [now[fp] for _t, _a, _b, fp in changed if fp in now]
    if len(moved) == len(changed):
        where = ", ".join(f"{a}-{b}" if a != b else str(a) for a, b in sorted(moved))
        return f"the file changed since the import: that text is now at line(s) {where}"
    when = max(time for time, *_ in changed)[:10]
    return f"the file changed since the import ({when}): these lines no longer say what was imported"
