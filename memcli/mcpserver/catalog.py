"""What `memcli mcp` declares to a client, read without the MCP SDK: the server's name, instructions
and capabilities, the tools with their schemas and annotations (declared.json), the protocol
versions it negotiates, and the check of a call's arguments against its tool's input schema.

The tools are declared once, as the SDK server's functions (memcli.mcpserver.server); declared.json
is what that server lists, written from it (`python tests/support/mcp_declared.py`), and
tests/mcp/test_lean_front.py fails when the two differ. The lean stdio front
(memcli.mcpserver.stdio) answers from here, so an agent's handshake costs no SDK import (~1 s).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from memcli.errors import ConfigError
from memcli.roots import config_source

SERVER_NAME = "memcli"
INSTRUCTIONS = (
    "Project memory kept in git by memcli: decisions, requests, knowledge and a summary. Call "
    "memcli_context at the start of a task, memcli_search before deciding something the project may "
    "already have decided, memcli_read to open a record, and memcli_remember when the user states a "
    "decision, request or rule worth keeping."
)
# The revisions the SDK negotiates through `initialize` (mcp_types.version.HANDSHAKE_PROTOCOL_VERSIONS,
# which a test compares): a client's is echoed when it is one of them, else the newest is offered.
PROTOCOL_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
DECLARED = Path(__file__).with_name("declared.json")
BUDGET_DEFAULT = 5000  # memcli_context's default in declared.json: the default config's budget


def declared() -> dict[str, Any]:
    """{"capabilities": ..., "tools": [...]} as the SDK server declares them."""
    data: dict[str, Any] = json.loads(DECLARED.read_text(encoding="utf-8"))
    return data


def tools(budget: int) -> list[dict[str, Any]]:
    """The tools as `tools/list` gives them, memcli_context's budget defaulting to the workspace's."""
    listed = copy.deepcopy(declared()["tools"])
    for tool in listed:
        if tool["name"] == "memcli_context":
            tool["inputSchema"]["properties"]["budget"]["default"] = budget
    return listed


def budget_of(root: Path) -> int | None:
    """The workspace's `context.budget_tokens` as its config file gives it (memcli.roots), without
    loading the config: what `tools/list` shows before any tool needs the workspace. None where only
    the validated config can say (not a plain integer of at least 100, a file that does not parse)."""
    try:
        found = config_source(root)
    except ConfigError:
        return None
    if found is None:
        return BUDGET_DEFAULT
    section = found[1].get("context", {})
    value = section.get("budget_tokens", BUDGET_DEFAULT) if isinstance(section, dict) else None
    return value if type(value) is int and value >= 100 else None


def negotiate(requested: Any) -> str:
    return requested if requested in PROTOCOL_VERSIONS else PROTOCOL_VERSIONS[-1]


class BadArguments(ValueError):
    """A call's arguments do not fit its tool's input schema; the message names the argument."""


_TYPES: dict[str, tuple[type, ...]] = {"string": (str,), "integer": (int,), "boolean": (bool,),
                                       "array": (list,), "number": (int, float), "object": (dict,)}


def arguments(schema: dict[str, Any], given: Any) -> dict[str, Any]:
    """`given` checked against the input schema (the keywords memcli's schemas use: type, enum,
    minLength/maxLength, minimum/maximum, items, required, default), defaults filled in; arguments
    the schema does not name are dropped, as the SDK drops them."""
    if given is None:
        given = {}
    if not isinstance(given, dict):
        raise BadArguments("arguments: expected an object")
    properties: dict[str, Any] = schema.get("properties", {})
    missing = [name for name in schema.get("required", []) if name not in given]
    if missing:
        raise BadArguments(f"{missing[0]}: a required argument is missing")
    out: dict[str, Any] = {}
    for name, spec in properties.items():
        if name in given:
            out[name] = _value(name, spec, given[name])
        elif "default" in spec:
            out[name] = copy.deepcopy(spec["default"])
    return out


def _value(name: str, spec: dict[str, Any], value: Any) -> Any:
    kind = spec.get("type")
    # JSON's true is no integer, and 3.0 is one
    if kind == "integer" and isinstance(value, float) and value.is_integer():
        value = int(value)
    wrong = kind != "boolean" and isinstance(value, bool)
    if kind in _TYPES and (wrong or not isinstance(value, _TYPES[kind])):
        raise BadArguments(f"{name}: expected a value of type {kind}, "
                           f"got {json.dumps(value, ensure_ascii=False)[:80]}")
    if "enum" in spec and value not in spec["enum"]:
        raise BadArguments(f"{name}: {value!r} is not one of {', '.join(map(str, spec['enum']))}")
    if kind == "string":
        if len(value) < spec.get("minLength", 0):
            raise BadArguments(f"{name}: at least {spec['minLength']} character(s)")
        if "maxLength" in spec and len(value) > spec["maxLength"]:
            raise BadArguments(f"{name}: at most {spec['maxLength']} characters")
    if kind == "integer":
        if "minimum" in spec and value < spec["minimum"]:
            raise BadArguments(f"{name}: should be >= {spec['minimum']}, got {value}")
        if "maximum" in spec and value > spec["maximum"]:
            raise BadArguments(f"{name}: should be <= {spec['maximum']}, got {value}")
    if kind == "array" and "items" in spec:
        return [_value(name, spec["items"], item) for item in value]
    return value
