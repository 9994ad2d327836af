"""`memcli eval --stage`: the repeated instructions the memory does not hold, as staging items.

Each occurrence (a session and the entry range of the prompt where the user said it) becomes one
staging file: Phase 1's format (memcli.staging), a request item titled `Rule: …` like a
`memcli_remember(kind="rule")` call, its machine-attached Source that occurrence, its provenance
the user. The files of one repetition carry the same title and list every session it was said
in, so consolidation files them as one request citing every Source.

Ids come from the occurrence (session, range, the user's words), so the same occurrence always
gets the same file; the ids staged are kept in `<state>/eval/staged.json`, so a second `--stage`
stages nothing new — not even after a consolidation consumed the files or chose to drop them.
Each file is written atomically; an interrupted run leaves whole files, and the next run skips
those already in `memory/_staging/`.
"""

from __future__ import annotations

import datetime as dt
import json

from memcli.atomicio import atomic_write_text
from memcli.eval.evaluate import Occurrence, Repetition
from memcli.records import Source
from memcli.secrets import redact
from memcli.staging import ExtractedItems, Provenance, RequestItem, StagingFile, staging_id, staging_path
from memcli.staging import write_staging as write_one
from memcli.values import frozen
from memcli.workspace import Workspace

VERSION = "eval-1"
MODEL = "memcli-eval"  # what staging files made here name as their "model"
_TEXT = 1_000
_TITLE = 80


@frozen
class Staged:
    new: tuple[str, ...]
    already: int


def _short(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _request(rep: Repetition, own: Occurrence) -> str:
    sessions = list(dict.fromkeys(o.session_id for o in rep.occurrences))
    lines = [own.text, "", f"The user gave this instruction in {len(sessions)} sessions "
             "(found by memcli eval):"]
    for o in rep.occurrences:
        when = f"{o.time:%Y-%m-%d} " if o.time else ""
        line = f"- {when}{o.session_id}:{o.start}-{o.end}: {_short(o.text, 160)}"
        if sum(len(x) + 1 for x in lines) + len(line) > _TEXT - 20:
            lines.append("- …")
            break
        lines.append(line)
    return redact("\n".join(lines))[0][:_TEXT]


def staging_files(rep: Repetition, now: dt.datetime | None = None) -> list[StagingFile]:
    """One staging file per place the user said it (the same prompt once)."""
    title = redact(f"Rule: {_short(rep.text, _TITLE)}")[0]
    out: dict[tuple[str, int, int], StagingFile] = {}
    for occ in rep.occurrences:
        key = (occ.session_id, occ.start, occ.end)
        if key in out:
            continue
        source = Source(session_id=occ.session_id, range=(occ.start, occ.end))
        out[key] = StagingFile(
            id=staging_id("eval", source, VERSION, MODEL, occ.text), agent=occ.agent, source=source,
            model=MODEL,
            prompt_version=VERSION, created_at=now or dt.datetime.now(dt.UTC),
            items=ExtractedItems(requests=[RequestItem(title=title, request=_request(rep, occ))]),
            provenance=Provenance(roles=[(occ.start, occ.end, "user")]))
    return list(out.values())


def _ledger(ws: Workspace) -> set[str]:
    try:
        data = json.loads((ws.state_dir / "eval" / "staged.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return set()
    ids = data.get("ids") if isinstance(data, dict) else None
    return {i for i in ids if isinstance(i, str)} if isinstance(ids, list) else set()


def stage(ws: Workspace, repetitions: list[Repetition]) -> Staged:
    """Write the staging files of the repetitions not covered now; the ids written and how many
    were staged before."""
    known = _ledger(ws)
    new: list[str] = []
    already = 0
    for rep in repetitions:
        if rep.covered_now:
            continue
        for staging in staging_files(rep):
            if staging.id in known or staging_path(ws.staging_dir, staging.id).exists():
                already += 1
                known.add(staging.id)
                continue
            write_one(ws.staging_dir, staging)
            new.append(staging.id)
            known.add(staging.id)
    if new or known - _ledger(ws):
        atomic_write_text(ws.state_dir / "eval" / "staged.json",
                          json.dumps({"ids": sorted(known)}, indent=1) + "\n")
    return Staged(tuple(new), already)
