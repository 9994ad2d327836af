"""What can go wrong with a model call: each error's message says what to fix."""

from __future__ import annotations

from typing import TYPE_CHECKING

from memcli.errors import EXIT_USAGE, MemcliError

if TYPE_CHECKING:
    from memcli.llm.usage import CallUsage  # (its dataclass is loaded only where a call is made)

INSTALL_LINE = 'pip install "memcli[llm]"'


class MissingExtra(MemcliError):
    """litellm is not installed: the model commands need the `llm` extra."""

    exit_code = EXIT_USAGE


class LLMError(MemcliError):
    """The model could not be reached or answered unusably; the message says what to fix."""


class RequestRefused(LLMError):
    """The server rejected the request itself (HTTP 400): unsupported parameter, context too long."""

    def __init__(self, message: str, context_window: bool = False) -> None:
        super().__init__(message)
        self.context_window = context_window


class ContextExceeded(RequestRefused):
    """The prompt leaves less of the model's context window than the answer's floor; it was not sent."""

    def __init__(self, message: str, prompt_tokens: int = 0, floor: int = 0) -> None:
        super().__init__(message, context_window=True)
        self.prompt_tokens, self.floor = prompt_tokens, floor


class InvalidOutput(LLMError):
    """The model kept answering something that does not validate. Carries the tokens spent."""

    def __init__(self, message: str, usage: CallUsage) -> None:
        super().__init__(message)
        self.usage = usage
