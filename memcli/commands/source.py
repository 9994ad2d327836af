"""`memcli source SESSION:START-END`: the transcript entries a Source points to (memcli.sessions)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from memcli.commands import workspace_or_here
from memcli.errors import EXIT_OK
from memcli.sessions.query import parse_spec, select
from memcli.sessions.render import entry_json, entry_text
from memcli.why.sources import find_transcript


def run(spec: str, *, paths: list[Path] | None = None, as_json: bool = False,
        workspace: Path | None = None) -> int:
    session_id, span = parse_spec(spec)
    ws = workspace_or_here(workspace, need=not paths)
    info = find_transcript(ws, session_id, paths=paths or None)
    chosen = select(info, span)
    if as_json:
        doc = {"session_id": info.session_id, "agent": info.agent, "path": str(info.path),
               "range": list(span) if span else None, "entries": [entry_json(e) for e in chosen]}
        print(json.dumps(doc, ensure_ascii=False, indent=2))
        return EXIT_OK
    where = f"{span[0]}-{span[1]}" if span else "all"
    out = [f"── {info.session_id}:{where} · {info.agent} · {info.path}"]
    if not chosen:
        out.append("(no conversation entries in these lines)")
    out.extend(entry_text(e) for e in chosen)
    sys.stdout.write("\n".join(out) + "\n")
    return EXIT_OK
