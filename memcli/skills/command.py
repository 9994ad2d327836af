"""`memcli skills sync [--agent ...] [--dry-run] [--json]`: the command around sync.py."""

from __future__ import annotations

import json

from memcli.errors import EXIT_OK
from memcli.skills import place
from memcli.skills.report import render_text
from memcli.skills.sync import sync
from memcli.workspace import Workspace

NONE_WIRED = ("skills: no agent to write skills for: `memcli hooks install` wires them, or name them "
              "with --agent {options} or all")


def run_sync(ws: Workspace, agents: list[str], *, dry_run: bool = False, as_json: bool = False) -> int:
    targets = place.chosen(agents) if agents else place.wired(ws.root)
    if not targets:
        message = NONE_WIRED.format(options="|".join(place.options()))
        print(json.dumps({"schema": "memcli.skills.sync", "version": 1, "agents": [], "note": message})
              if as_json else message)
        return EXIT_OK
    result = sync(ws, targets, dry_run=dry_run)
    if as_json:
        print(json.dumps({**result.to_json_dict(), "agents": [t.option for t in targets]},
                         ensure_ascii=False, indent=2))
    else:
        print(render_text(result), end="")
    return EXIT_OK
