"""Can this install extract now, and with which model? With no model set, memcli runs the coding
agent the user already has (`agent/claude-code` ..., memcli.llm.endpoint.default_agent), which
needs no litellm; a litellm model needs `pip install "memcli[llm]"`. When neither is there
(`memory.extract_model = "none"`, or no agent memcli can run), agents still get the context and the
tools, captured sessions wait for a model and their `memcli_remember` calls are staged meanwhile.
This says what is missing, without importing litellm (finding it is enough).
"""

from __future__ import annotations

import importlib.util
import os
from typing import TYPE_CHECKING

from memcli.errors import ConfigError
from memcli.llm import INSTALL_LINE, MODEL_ENV, OFF, Choice, choose_model, default_agent, is_agent_model

if TYPE_CHECKING:
    from memcli.workspace import Workspace

WAITING = "waiting for a model"
SET_MODEL = "set memory.extract_model (or install and wire a coding agent memcli can run)"
TURNED_OFF = 'off (memory.extract_model = "none")'


def extract_choice(ws: Workspace | None, session_agent: str | None = None) -> Choice | None:
    """The model capture extracts with; None when there is none. Without a workspace (a user-scope
    hook install) the environment's model (MEMCLI_EXTRACT_MODEL), else an agent wired for the user."""
    if ws is not None:
        try:
            return choose_model(ws, "extract", session_agent=session_agent)
        except ConfigError:
            return None
    env = os.environ.get(MODEL_ENV["extract"], "").strip()
    if env and env.lower() != OFF:
        return Choice(env)
    found = None if env else default_agent(None, "extract", session_agent)
    return Choice(found, default=True) if found else None


def waiting_for_model(ws: Workspace | None) -> str | None:
    """None when extraction can call a model; else the line that says what to do, e.g.
    'waiting for a model: set memory.extract_model and pip install "memcli[llm]"'."""
    choice = extract_choice(ws)
    if choice is not None and is_agent_model(choice.model):
        return None  # a coding agent as the model needs no litellm
    if choice is None and _turned_off(ws):
        return TURNED_OFF
    missing = [] if choice is not None else [SET_MODEL]
    if importlib.util.find_spec("litellm") is None:
        missing.append(INSTALL_LINE)
    return f"{WAITING}: {' and '.join(missing)}" if missing else None


def capture_line(ws: Workspace | None) -> str:
    """What `hooks install` says of capture: the model it extracts with, or what it waits for."""
    waiting = waiting_for_model(ws)
    if waiting is not None:
        said = f"extraction {waiting}" if waiting == TURNED_OFF else waiting
        return f"{said} (memcli_remember calls are staged meanwhile)"
    choice = extract_choice(ws)
    assert choice is not None  # not waiting: there is a model
    return f"extracting with {choice.described('extract')}"


def _turned_off(ws: Workspace | None) -> bool:
    configured = ws.config.memory.extract_model if ws is not None else None
    value = configured or os.environ.get(MODEL_ENV["extract"]) or ""
    return value.strip().lower() == OFF
