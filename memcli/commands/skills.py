"""`memcli skills sync [--agent ...] [--dry-run] [--json]`: knowledge and workflows as the agents'
skills (memcli.skills), and what each agent lists of them."""

from __future__ import annotations

import json
from pathlib import Path

from memcli.commands import open_workspace
from memcli.errors import EXIT_OK
from memcli.skills import place
from memcli.skills.report import render_text
from memcli.skills.sync import sync

NONE_WIRED = ("skills: no agent to write skills for: `memcli hooks install` wires them, or name them "
              "with --agent {options} or all")


def sync_run(agents: list[str] | None = None, *, dry_run: bool = False, as_json: bool = False,
             workspace: Path | None = None) -> int:
    ws = open_workspace(workspace)
    agents = list(agents or [])
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
