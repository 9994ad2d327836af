"""Can this install extract now? `pip install memcli` (no `llm` extra) and a workspace with no
`memory.extract_model` are normal ways to start: agents get the context and the tools, captured
sessions wait for a model and their `memcli_remember` calls are staged meanwhile. This says what
is missing, without importing litellm (finding it is enough).
"""

from __future__ import annotations

import importlib.util
import os
from typing import TYPE_CHECKING

from memcli.errors import ConfigError
from memcli.llm import INSTALL_LINE, MODEL_ENV, resolve_model

if TYPE_CHECKING:
    from memcli.workspace import Workspace

WAITING = "waiting for a model"
SET_MODEL = "set memory.extract_model"


def waiting_for_model(ws: Workspace | None) -> str | None:
    """None when extraction can call a model; else the line that says what to do, e.g.
    'waiting for a model: set memory.extract_model and pip install "memcli[llm]"'. Without a
    workspace (a user-scope hook install) only the environment's model (MEMCLI_EXTRACT_MODEL)
    counts."""


    if ws is None:
        configured = bool(os.environ.get(MODEL_ENV["extract"]))
    else:
        try:
            resolve_model(ws, "extract")
            configured = True
        except ConfigError:
            configured = False
    missing = [] if configured else [SET_MODEL]
    if importlib.util.find_spec("litellm") is None:
        missing.append(INSTALL_LINE)
    return f"{WAITING}: {' and '.join(missing)}" if missing else None
