"""What a model call gives back: the tokens and cost it used, and an assistant turn."""

from __future__ import annotations

from typing import Any

from memcli.values import frozen


@frozen
class CallUsage:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = None
    calls: int = 0

    def __add__(self, other: CallUsage) -> CallUsage:
        cost = None if self.cost_usd is None and other.cost_usd is None else (
            (self.cost_usd or 0.0) + (other.cost_usd or 0.0))
        return CallUsage(self.prompt_tokens + other.prompt_tokens,
                         self.completion_tokens + other.completion_tokens, cost, self.calls + other.calls)


@frozen
class ToolCallRequest:
    id: str
    name: str
    arguments: dict[str, Any] | str  # the raw string when the model sent malformed JSON


@frozen
class ChatTurn:
    content: str | None
    tool_calls: tuple[ToolCallRequest, ...]
    usage: CallUsage
    message: dict[str, Any]  # the assistant message, ready to append to the conversation

