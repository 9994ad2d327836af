"""What memcli knows of a model: how large its context window is, whether it takes the window per
request, and how many tokens a prompt takes (memcli.tokens' estimate, which errs high). Only
`known_context` asks litellm. Which model a command uses is memcli.llm.endpoint's."""

from __future__ import annotations

import json
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


def context_tokens(workspace: Workspace, model: str) -> int:
    """The context window used for `model`: config, else the coding agent's declaration (`agent/...`),
    else litellm's knowledge, else DEFAULT_CONTEXT. Imports litellm only when neither says (model
    commands only)."""
    configured = workspace.config.memory.context_tokens
    if configured is not None:
        return configured
    agent = registry.by_model(model)  # a coding agent (`agent/...`): what its declaration says
    return agent[1].context_tokens if agent is not None else known_context(model) or DEFAULT_CONTEXT


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
