"""One way a tool call fails: a step raises ToolFailure, the tool's boundary answers with it.

A step deep in a call (a path that is no record, a file that is not UTF-8, an edit that matches
twice) raises `ToolFailure` with the result the model should read; `answers` wraps each tool
(ToolSession's own and the ones a caller adds, such as consolidation's `dispose`) and turns the
exception into that result, so no step returns "a value or an error" for its caller to check.
Anything else a tool raises is a bug and is not caught here.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any, ParamSpec

from memcli.tools.result import ToolResult, failure

P = ParamSpec("P")


class ToolFailure(Exception):
    """A tool call that cannot go on; `result` is what the model is told (ok false, an error kind)."""

    def __init__(self, error: str, message: str, **data: Any) -> None:
        super().__init__(message)
        self.result = failure(error, message, **data)


def answers(tool: Callable[P, ToolResult]) -> Callable[P, ToolResult]:
    """`tool`, with a ToolFailure raised inside it returned as its result: the call boundary."""

    @wraps(tool)
    def run(*args: P.args, **kwargs: P.kwargs) -> ToolResult:
        try:
            return tool(*args, **kwargs)
        except ToolFailure as exc:
            return exc.result

    return run
