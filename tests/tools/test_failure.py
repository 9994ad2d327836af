"""A step that fails raises ToolFailure; the tool's boundary answers with its result, once."""

from __future__ import annotations

import json

import pytest

from memcli.tools import ToolSession
from memcli.tools.failure import ToolFailure, answers

SCHEMA = {"type": "function", "function": {"name": "probe", "description": "d",
          "parameters": {"type": "object", "properties": {}, "required": [],
                         "additionalProperties": False}}}


def _fails() -> None:
    raise ToolFailure("not-found", "no such thing; name another", path="memory/x.md")


def test_an_added_tool_that_raises_is_answered_with_its_result(session: ToolSession) -> None:
    session.add_tool(SCHEMA, _fails)
    out = json.loads(session.dispatch("probe", "{}"))
    assert out == {"ok": False, "error": "not-found", "message": "no such thing; name another",
                   "path": "memory/x.md"}


def test_a_bug_is_not_turned_into_a_result() -> None:
    @answers
    def broken() -> None:
        raise KeyError("bug")

    with pytest.raises(KeyError):
        broken()


def test_the_python_api_returns_the_failure_too(session: ToolSession) -> None:
    out = session.edit("memory/decisions/nowhere.md", "a", "b", "r")
    assert not out.ok and out.error == "not-found" and "does not exist" in out.message
