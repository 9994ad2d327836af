"""What memcli knows of a model: how large its context window is, whether it takes the window per
request, and how many tokens a prompt takes (memcli.tokens' estimate, which errs high). Only
`known_context` asks litellm; `table_context` reads litellm's bundled model table as a file.
Which model a command uses is memcli.llm.endpoint's."""

from __future__ import annotations

import importlib.util
import json
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memcli.agents import registry
from memcli.llm.library import litellm
from memcli.tokens import EstimateCounter

if TYPE_CHECKING:
    from memcli.workspace import Workspace

DEFAULT_CONTEXT = 8192  # a model litellm does not know: small local models start at 8k
ANSWER_FLOOR = 256  # tokens: the least room an answer is ever sent with (a tool call, a short object)
# Providers that take the context size per request (Ollama's default is far below most models').
NUM_CTX_PROVIDERS = ("ollama", "ollama_chat")


def takes_num_ctx(model: str) -> bool:
    return model.split("/", 1)[0] in NUM_CTX_PROVIDERS


def context_tokens(workspace: Workspace, model: str, *, light: bool = False) -> int:
    """The context window used for `model`: config, else the coding agent's declaration (`agent/...`),
    else litellm's knowledge, else DEFAULT_CONTEXT. Imports litellm only when neither says (model
    commands only); `light`: read litellm's model table without importing litellm (a dry run, which
    calls no model)."""
    configured = workspace.config.memory.context_tokens
    if configured is not None:
        return configured
    agent = registry.by_model(model)  # a coding agent (`agent/...`): what its declaration says
    if agent is not None:
        return agent[1].context_tokens
    return (table_context(model) if light else known_context(model)) or DEFAULT_CONTEXT


def assumed_window(workspace: Workspace, model: str, *, light: bool = False) -> str | None:
    """What a run says once at its start when the window it works within is memcli's default, not
    the model's (nothing configured, the model unknown to litellm); None when it is known (a
    coding agent's comes from its declaration)."""
    if workspace.config.memory.context_tokens is not None or registry.by_model(model) is not None:
        return None
    if takes_num_ctx(model):
        return (f"model {model}: asking Ollama for a context window of {DEFAULT_CONTEXT} tokens (num_ctx); "
                "set memory.context_tokens for a larger one")
    if (table_context(model) if light else known_context(model)) is not None:
        return None
    return (f"model {model} is not in litellm's model table: assuming a context window of {DEFAULT_CONTEXT} "
            "tokens; set memory.context_tokens to its real size")


def known_context(model: str) -> int | None:
    """litellm's `max_input_tokens` for the model, None when it does not know it. Not asked for
    Ollama: litellm would query the server, whose answer is the model's trained maximum, not a
    window it allocates (memcli sets that through num_ctx, so a small default is the safe one)."""
    if takes_num_ctx(model):
        return None
    try:
        size = litellm().get_model_info(model).get("max_input_tokens")
    except Exception:  # litellm's answer to a model it has no entry for (local, self-hosted, new)
        return None
    return int(size) if isinstance(size, int) and size > 0 else None


_TABLE = "model_prices_and_context_window_backup.json"  # the table litellm ships and reads offline


@cache
def _table() -> dict[str, Any]:
    spec = importlib.util.find_spec("litellm")
    if spec is None or not spec.submodule_search_locations:
        return {}
    try:
        data = json.loads((Path(spec.submodule_search_locations[0]) / _TABLE).read_bytes())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def table_context(model: str) -> int | None:
    """`max_input_tokens` from litellm's bundled model table, read as a file (litellm is not
    imported): the entry named `model`, else `provider/name`'s entry `name` of that provider.
    known_context's answer for the models people name; None where it has no entry (and for
    Ollama, as known_context)."""
    if takes_num_ctx(model):
        return None
    table = _table()
    entry = table.get(model)
    if entry is None and "/" in model:
        provider, name = model.split("/", 1)
        found = table.get(name)
        entry = found if isinstance(found, dict) and found.get("litellm_provider") == provider else None
    size = entry.get("max_input_tokens") if isinstance(entry, dict) else None
    return int(size) if isinstance(size, int) and size > 0 else None


def answer_floor(requested: int) -> int:
    """The least `max_tokens` a call that asks for `requested` is sent with: a quarter of it, at least
    ANSWER_FLOOR (and never more than asked)."""
    return min(requested, max(ANSWER_FLOOR, requested // 4))


def estimate_prompt(messages: list[dict[str, Any]], params: dict[str, Any]) -> int:
    """The prompt's tokens as memcli.tokens estimates them (errs high): message texts, tool calls,
    tool schemas and a response schema, plus a few tokens of framing per message."""
    count = EstimateCounter().count
    total = 0
    for msg in messages:
        content = msg.get("content")
        if isinstance(content, list):  # content parts
            content = " ".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
        total += 4 + count(content or "")
        for call in msg.get("tool_calls") or []:
            fn = call.get("function", {})
            total += count(str(fn.get("name", ""))) + count(str(fn.get("arguments", "")))
    for key in ("tools", "response_format"):
        if params.get(key):
            total += count(json.dumps(params[key], ensure_ascii=False))
    return total
