"""Which model a step uses and where it is reached, read from the configuration in one place: the
litellm model string (`--model` > config > environment), the base URL that overrides the
provider's (else litellm's environment variables, e.g. OPENAI_API_BASE), and how long one request
may take. The gateway's chat models and search's embedding model (memcli.search.semantic) both get
theirs here."""

from __future__ import annotations

import os
import shutil
from typing import TYPE_CHECKING, Literal

from memcli.errors import ConfigError
from memcli.values import frozen

if TYPE_CHECKING:
    from pathlib import Path

    from memcli.agents.base import Agent
    from memcli.config import SearchConfig
    from memcli.workspace import Workspace

Role = Literal["extract", "consolidation"]
MODEL_ENV = {"extract": "MEMCLI_EXTRACT_MODEL", "consolidation": "MEMCLI_CONSOLIDATION_MODEL"}


OFF = "none"  # `memory.extract_model = "none"`: no model, not even the default agent


@frozen
class Choice:
    model: str
    default: bool = False  # no model was set: this is the agent memcli picked (say so once)

    def notice(self, role: Role) -> str | None:
        """The line that says a default was picked, e.g. 'using agent/claude-code (no
        memory.extract_model set)'; None when the model was set."""
        return f"using {self.described(role)}" if self.default else None

    def described(self, role: Role) -> str:
        """The model, and why when memcli picked it: 'agent/codex (no memory.extract_model set)'."""
        return f"{self.model} (no memory.{_KEY[role]} set)" if self.default else self.model


_KEY = {"extract": "extract_model", "consolidation": "consolidation_model"}


def choose_model(workspace: Workspace, role: Role, model: str | None = None, *,
                 session_agent: str | None = None) -> Choice:
    """The model a command uses (no key check, no litellm import): flag > config > env > the
    coding agent the user already runs (default_agent). `session_agent`: the agent whose session
    is being captured, preferred as the default."""
    mem = workspace.config.memory
    configured = mem.extract_model if role == "extract" else mem.consolidation_model
    chosen = model or configured or os.environ.get(MODEL_ENV[role])
    if chosen and chosen.strip().lower() != OFF:
        return Choice(chosen.strip())
    if not chosen:
        found = default_agent(workspace.root, role, session_agent)
        if found is not None:
            return Choice(found, default=True)
    key = _KEY[role]
    if chosen:
        raise ConfigError(f"no model for {role}: memory.{key} is \"none\" (set a model to turn it on)")
    raise ConfigError(
        f"no model for {role}: set memory.{key} in memcli.toml, {MODEL_ENV[role]}, or pass "
        "--model (a coding agent you use, e.g. agent/claude-code, or any litellm model, e.g. "
        "openai/gpt-4o-mini with OPENAI_API_KEY)")


def resolve_model(workspace: Workspace, role: Role, model: str | None = None, *,
                  session_agent: str | None = None) -> str:
    """The model a command uses: choose_model's, without saying whether it was a default."""
    return choose_model(workspace, role, model, session_agent=session_agent).model


def default_agent(root: Path | None, role: Role, session_agent: str | None = None) -> str | None:
    """`agent/<name>` for the coding agent memcli runs as the model when none is set: the agent
    whose session is being captured, else the first agent memcli is wired into (registry order: in
    the workspace at `root`, else for the user)
    whose executable is on PATH; consolidation only takes one memcli can run with its tools. None
    when there is no such agent."""
    # here: only a command choosing a model reads the agents' wiring
    from memcli.agents import registry, wired

    def runs(agent: Agent) -> bool:
        headless = registry.headless_of(agent)
        if headless is None or shutil.which(headless.executable) is None:
            return False
        if role == "extract":
            return True
        dialect = agent.load().headless
        return dialect is not None and dialect.work is not None

    if session_agent:
        agent = registry.get(session_agent)
        if agent is not None and runs(agent):
            return registry.model_name(agent)
    for agent in wired.wired(root):
        if runs(agent):
            return registry.model_name(agent)
    return None


@frozen
class Endpoint:
    model: str
    api_base: str | None = None
    timeout_s: float = 30.0

    @classmethod
    def for_role(cls, workspace: Workspace, role: Role, model: str | None = None) -> Endpoint:
        """A pipeline step's model: `--model` > config > environment with
        `memory.api_base` and the step's timeout."""
        cfg = workspace.config
        timeout = cfg.extract.timeout_s if role == "extract" else cfg.memory.timeout_s
        return cls(resolve_model(workspace, role, model), cfg.memory.api_base, timeout)

    @classmethod
    def for_embeddings(cls, cfg: SearchConfig) -> Endpoint | None:
        """`[search] embedding_model` with its base URL and timeout; None when none is set."""
        if not cfg.embedding_model:
            return None
        return cls(cfg.embedding_model, cfg.embedding_api_base, cfg.embedding_timeout_s)
