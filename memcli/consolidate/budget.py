"""How many tokens of the consolidation model's context window the input may take.

All of it is measured with the gateway's own counter (`memcli.llm.estimate_prompt`, which errs
high), so what fits here is never refused by the gateway's check:

    window        Gateway.context_tokens (memory.context_tokens, else what litellm knows, else 8192)
  − fixed         system prompt + integration prompt (without its input) + tool schemas, as sent
  − answer        one model turn (sent as max_tokens): a record written       min(32768, window / 8)
  − traffic       tool results and turns within one batch before trimming     min(8192, window / 8)
  = input         summary, catalogue, reports, one batch of staging items and the records related to it

One rule holds on every call: prompt + max_tokens ≤ window. Before every model call the conversation
is trimmed to `window − answer` (memcli.consolidate.trim): the traffic share is what a batch may add
before old turns (tool results, the model's text, nudges) are stubbed out. When trimming cannot get
there, the gateway shrinks max_tokens to what is left, down to a floor (memcli.llm.answer_floor),
and below that the run fails saying what filled the window.
"""

from __future__ import annotations

from typing import Any

from memcli.consolidate import prompts
from memcli.llm import estimate_prompt
from memcli.values import frozen


def tokens(text: str) -> int:
    """One message's tokens as the gateway's check counts them (framing included)."""

    return estimate_prompt([{"role": "user", "content": text}], {})


@frozen
class Budget:
    window: int
    fixed: int

    @property
    def answer(self) -> int:
        # Sent as the call's max_tokens: a local server otherwise lets a rambling small model fill
        # the whole window, and the next call (which carries that turn) cannot fit. Generous on
        # large windows, where a reasoning model spends its thinking out of the same allowance.
        return min(32768, self.window // 8)

    @property
    def traffic(self) -> int:
        return min(8192, self.window // 8)

    @property
    def input(self) -> int:
        return self.window - self.fixed - self.answer - self.traffic

    @property
    def conversation(self) -> int:
        """What the messages and tool schemas of one call may take (the rest is the answer's)."""
        return self.window - self.answer

    def describe(self) -> str:
        return (f"context window {self.window} tokens = prompt and tool schemas {self.fixed} + room for the "
                f"answer {self.answer} and tool traffic {self.traffic} + input {self.input}")


def measure(window: int, schemas: list[dict[str, Any]], now: str = "") -> Budget:
    """The budget of a run whose first call carries `schemas` (every tool of the integration phase)."""

    fixed = estimate_prompt(
        [{"role": "system", "content": prompts.load("system")},
         {"role": "user", "content": prompts.render("integration", now=now, input="")}],
        {"tools": schemas},
    )
    return Budget(window, fixed)
