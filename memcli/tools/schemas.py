"""The tool-calling schemas (OpenAI / litellm `tools=` format) and a small argument checker.

The checker covers exactly the JSON Schema subset used here (object, required, no extra keys,
string / integer / boolean / array types, enum, minimum, maximum) so a model's malformed call becomes an
error result it can read, without a jsonschema dependency.
"""

from __future__ import annotations

import copy
from typing import Any

from memcli.tools.phase import Phase

CATEGORIES = ("outdated", "superseded", "unused", "noisy")
MEMORY_TYPES = ("summary", "decision", "request", "workflow")
KNOWLEDGE_KINDS = ("term", "policy", "rule", "fact", "howto")

# The system prompt describes paths, reasons and categories once; the schemas only say how to call.
_PATH = {"type": "string"}
_REASON = {"type": "string"}
_CATEGORY = {"type": "string", "enum": list(CATEGORIES)}
_LIMIT = {"type": "integer", "minimum": 1, "maximum": 50}


def _tool(name: str, description: str, properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {
                "type": "object",
                "properties": properties,
                "required": required,
                "additionalProperties": False,
            },
        },
    }


_TOOLS: list[dict[str, Any]] = [
    _tool(
        "memory_read",
        "Read a record (text, size against its cap) or list a folder; lines 1-based, inclusive.",
        {
            "path": _PATH,
            "start_line": {"type": "integer", "minimum": 1},
            "end_line": {"type": "integer", "minimum": 1},
        },
        ["path"],
    ),
    _tool(
        "memory_write",
        "Create or wholly replace a record; `content` is the whole file (frontmatter and body).",
        {
            "path": _PATH,
            "content": {"type": "string"},
            "mode": {"type": "string", "enum": ["create", "replace"]},
            "reason": _REASON,
            "category": _CATEGORY,
        },
        ["path", "content", "mode", "reason"],
    ),
    _tool(
        "memory_edit",
        "Replace exact text in a record; old_string must occur once, or set replace_all.",
        {
            "path": _PATH,
            "old_string": {"type": "string"},
            "new_string": {"type": "string"},
            "replace_all": {"type": "boolean"},
            "reason": _REASON,
            "category": _CATEGORY,
        },
        ["path", "old_string", "new_string", "reason"],
    ),
    _tool(
        "memory_delete",
        "Delete a request or knowledge record.",
        {"path": _PATH, "reason": _REASON, "category": _CATEGORY},
        ["path", "reason"],
    ),
    _tool(
        "memory_search",
        "Search memory records by words; best hits first.",
        {
            "query": {"type": "string"},
            "types": {"type": "array", "items": {"type": "string", "enum": list(MEMORY_TYPES)}},
            "status": {"type": "string", "enum": ["open", "resolved", "replaced"]},
            "include_replaced": {"type": "boolean"},
            "limit": _LIMIT,
        },
        ["query"],
    ),
    _tool(
        "knowledge_search",
        "Search knowledge records by words; best hits first.",
        {
            "query": {"type": "string"},
            "kind": {"type": "string", "enum": list(KNOWLEDGE_KINDS)},
            "limit": _LIMIT,
        },
        ["query"],
    ),
]

TOOL_NAMES: tuple[str, ...] = tuple(t["function"]["name"] for t in _TOOLS)
MUTATING = ("memory_write", "memory_edit", "memory_delete")


def tool_schemas(phase: Phase | str = Phase.INTEGRATION) -> list[dict[str, Any]]:
    """Fresh copies of the schemas; in the GC phase `category` is required on mutating tools, in
    the others it is not offered (it means nothing there; every call sends the schemas, so each
    token counts). A call that passes one anyway is still checked against the full schema."""
    out = copy.deepcopy(_TOOLS)
    for tool in out:
        fn = tool["function"]
        if fn["name"] in MUTATING:
            if Phase(phase).needs_category:
                fn["parameters"]["required"].append("category")
            else:
                del fn["parameters"]["properties"]["category"]
    return out


def schema_of(name: str) -> dict[str, Any] | None:
    for tool in _TOOLS:
        if tool["function"]["name"] == name:
            return tool["function"]["parameters"]
    return None


_PY_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "boolean": (bool,),
    "array": (list,),
}


def _type_ok(kind: str, value: Any) -> bool:
    if kind in ("integer",) and isinstance(value, bool):
        return False  # JSON true is not an integer
    return isinstance(value, _PY_TYPES[kind])


def _check_value(name: str, spec: dict[str, Any], value: Any) -> list[str]:
    kind = spec.get("type")
    if kind and not _type_ok(kind, value):
        return [f"{name}: expected {kind}, got {type(value).__name__}"]
    problems: list[str] = []
    if "enum" in spec and value not in spec["enum"]:
        problems.append(f"{name}: {value!r} is not one of {', '.join(map(str, spec['enum']))}")
    if "minimum" in spec and value < spec["minimum"]:
        problems.append(f"{name}: {value} is below the minimum {spec['minimum']}")
    if "maximum" in spec and value > spec["maximum"]:
        problems.append(f"{name}: {value} is above the maximum {spec['maximum']}")
    if kind == "array" and "items" in spec:
        for i, item in enumerate(value):
            problems.extend(_check_value(f"{name}[{i}]", spec["items"], item))
    return problems


def check_arguments(name: str, args: dict[str, Any], schema: dict[str, Any] | None = None) -> list[str]:
    """Problems with a call's arguments against the tool's schema (empty: fine); `schema`: the
    parameters of a tool added with ToolSession.add_tool."""
    schema = schema or schema_of(name)
    assert schema is not None
    props: dict[str, Any] = schema["properties"]
    problems = [f"missing required argument {key!r}" for key in schema["required"] if key not in args]
    for key, value in args.items():
        if key not in props:
            problems.append(f"unknown argument {key!r}; allowed: {', '.join(props)}")
        else:
            problems.extend(_check_value(key, props[key], value))
    return problems
