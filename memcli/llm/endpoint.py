"""Which model a step uses and where it is reached, read from the configuration in one place: the
litellm model string (`--model` > config > environment), the base URL that overrides the
provider's (else litellm's environment variables, e.g. OPENAI_API_BASE), and how long one request
may take. The gateway's chat models and search's embedding model (memcli.search.semantic) both get
theirs here."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from memcli.errors import ConfigError

if TYPE_CHECKING:
    from memcli.config import SearchConfig
    from memcli.workspace import Workspace

Role = Literal["extract", "consolidation"]
MODEL_ENV = {"extract": "MEMCLI_EXTRACT_MODEL", "consolidation": "MEMCLI_CONSOLIDATION_MODEL"}


def resolve_model(workspace: Workspace, role: Role, model: str | None = None) -> str:
    """The model a command uses (no key check, no litellm import): flag > config > env."""
    mem = workspace.config.memory
    configured = mem.extract_model if role == "extract" else mem.consolidation_model
    chosen = model or configured or os.environ.get(MODEL_ENV[role])
    if not chosen:
        key = "extract_model" if role == "extract" else "consolidation_model"
        raise ConfigError(
            f"no model for {role}: set memory.{key} in memcli.toml, {MODEL_ENV[role]}, or pass "
            "--model (any litellm model, e.g. openai/gpt-4o-mini with OPENAI_API_KEY)")
    return chosen



@dataclass(frozen=True)
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
