"""`memcli context`: print the resident context (memcli.context) as Markdown or JSON."""

from __future__ import annotations

import json
from pathlib import Path

from memcli.agents.registry import options
from memcli.commands import json_format, open_workspace
from memcli.context import build_context
from memcli.errors import EXIT_OK, UsageError

FORMATS = ("markdown", "json")


def run(*, budget: int | None = None, fmt: str = "markdown", as_json: bool = False,
        agent: str | None = None, workspace: Path | None = None) -> int:
    ws = open_workspace(workspace)
    fmt = json_format(fmt, as_json, "markdown")
    if fmt not in FORMATS:
        raise UsageError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    if agent is not None and agent not in options():  # a typo would silently give the whole index
        raise UsageError(f"--agent {agent!r}: choose one of {', '.join(options())}")
    result = build_context(ws, budget, agent=agent)
    if fmt == "json":
        print(json.dumps(result.to_json_dict(), ensure_ascii=False, indent=2))
    else:
        print(result.text, end="")
    return EXIT_OK
