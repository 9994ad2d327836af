"""`memcli hooks session-start`: the resident context, printed in the form the agent's SessionStart
hook must print it (its declaration in memcli/agents/ says which). Like every hook it exits 0,
prints nothing outside a workspace or for an empty memory, and never blocks on its payload.

Every session start runs it and the agent waits for its output, so `memcli.entry` calls it without
Typer, and it reads only the agents' declarations (memcli/agents/base.py says why).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import IO, TYPE_CHECKING

from memcli.agents import registry
from memcli.agents.base import ADDITIONAL_CONTEXT, JSON
from memcli.errors import EXIT_OK
from memcli.hooks import startmemo
from memcli.hooks.payload import guarded, read_payload
from memcli.ownrun import own_run
from memcli.roots import root_for

if TYPE_CHECKING:
    from memcli.context.layout import ContextResult
    from memcli.workspace import Workspace


def root_of(cwd: str | None, workspace: Path | None) -> Path | None:
    """The root of the workspace the hook's session ran in (None: not a memcli project, nothing to
    do)."""
    cwd = cwd if isinstance(cwd, str) and cwd.strip() and "\0" not in cwd else os.getcwd()
    try:
        return root_for(workspace, Path(cwd))
    except OSError:
        return None


def find_workspace(cwd: str | None, workspace: Path | None) -> Workspace | None:
    """The workspace the hook's session ran in (None: not a memcli project, nothing to do)."""
    root = root_of(cwd, workspace)
    if root is None:
        return None
    from memcli.workspace import Workspace  # here: a session start answered from its memo reads no config

    return Workspace.open(root)


def output_form(option: str | None) -> str:
    """How the agent named by `--agent` reads its SessionStart hook's output (base.FORMS). JSON for a
    name memcli does not know: no agent mistakes it for something else."""
    found = registry.by_option(option or registry.SESSION_START_DEFAULT)
    return found[1].session_start if found is not None else JSON


def printed(result: ContextResult, agent: str | None) -> str:
    """What the hook prints for `result`: nothing for an empty memory, else its text in the form
    `agent` reads."""
    if result.summary_path is None and not result.shown and not result.cut:
        return ""  # an empty memory: nothing worth a place in the context
    text, form = result.text, output_form(agent)
    if form == JSON:
        out = {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": text}}
        return json.dumps(out, ensure_ascii=False) + "\n"
    if form == ADDITIONAL_CONTEXT:
        return json.dumps({"additionalContext": text}, ensure_ascii=False) + "\n"
    return text  # added to the context as is


def session_start(agent: str | None, stream: IO[bytes] | None, workspace: Path | None = None) -> int:
    def work() -> int:
        cwd = read_payload(stream).get("cwd")
        if own_run():
            return EXIT_OK
        root = root_of(cwd, workspace)
        if root is None:
            return EXIT_OK
        known = startmemo.recall(root, agent)  # the memory as the last session start found it
        if known is not None:
            sys.stdout.write(known)
            return EXIT_OK
        # here: a session started outside a workspace (a hook installed for the user) stops above
        from memcli.context import build_context
        from memcli.workspace import Workspace

        ws = Workspace.open(root)
        # without the knowledge this agent already lists as skills (memcli skills sync)
        result = build_context(ws, agent=agent or registry.SESSION_START_DEFAULT)
        out = printed(result, agent)
        if result.files_decide:
            startmemo.remember(ws, agent, out, startmemo.inputs(ws, agent or registry.SESSION_START_DEFAULT))
        sys.stdout.write(out)
        return EXIT_OK

    return guarded(work)
