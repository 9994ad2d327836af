"""A lean constructor for the plain YAML that frontmatter nearly always is.

PyYAML's libyaml binding parses and composes in C, but builds Python objects in pure Python
through a general machinery (generators, deep/shallow passes, tag dispatch) that costs most of a
record's parse time. Frontmatter is mappings, lists and core-schema scalars, so those are built
directly here — scalars through PyYAML's own scalar constructors, so values are identical. Anything
else (merge keys, explicit or unknown tags, complex keys, self-referencing anchors) raises
`Unsupported`, and the caller uses the full constructor, which gives the same result or the same
error as before.
"""

from __future__ import annotations

from typing import Any

from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

_T = "tag:yaml.org,2002:"
_STR, _SEQ, _MAP = _T + "str", _T + "seq", _T + "map"
_SCALARS = {
    _T + "int": "construct_yaml_int",
    _T + "float": "construct_yaml_float",
    _T + "bool": "construct_yaml_bool",
    _T + "null": "construct_yaml_null",
    _T + "timestamp": "construct_yaml_timestamp",
}

_INT = _T + "int"
_TIMESTAMP = _T + "timestamp"
# Records written together share their timestamps (created_at == updated_at, one run's batch):
# parsing each text once is enough.
_TIMESTAMPS: dict[str, Any] = {}
_TIMESTAMPS_MAX = 20_000
_KEY_TAGS = frozenset((_STR, *_SCALARS))


class Unsupported(Exception):
    """The node needs the full constructor."""


class BadValue(ValueError):
    """A scalar of the right shape but an impossible value (`2026-02-30`, hour 24): PyYAML's
    constructors raise a bare ValueError for these; this one says which node."""

    def __init__(self, node: Node, problem: str) -> None:
        super().__init__(problem)
        self.line = node.start_mark.line if node.start_mark is not None else None


def construct(loader: Any, root: Node) -> Any:
    """The Python value of `root`, built like `loader.construct_document(root)` would."""
    # aliases share one object, as with PyYAML (and no blow-up); a module-level function, not a
    # closure, so no reference cycle is left for the cyclic GC per record
    return _build(loader, root, {}, set())


def _build(loader: Any, node: Node, memo: dict[int, Any], active: set[int]) -> Any:
    key = id(node)
    if key in memo:
        return memo[key]
    if key in active:
        raise Unsupported  # a recursive structure
    tag = node.tag
    if isinstance(node, ScalarNode):
        if tag == _STR:
            value: Any = node.value
        elif (
            tag == _INT
            and node.value.isdigit()
            and node.value.isascii()
            and (node.value[0] != "0" or node.value == "0")
        ):
            value = int(node.value)  # what construct_yaml_int gives a plain decimal, minus its work
        elif tag == _TIMESTAMP and node.value in _TIMESTAMPS:
            value = _TIMESTAMPS[node.value]  # an immutable date or datetime, built before
        elif tag in _SCALARS:
            try:
                value = getattr(loader, _SCALARS[tag])(node)
            except (ValueError, OverflowError) as exc:
                raise BadValue(node, str(exc)) from None
            if tag == _TIMESTAMP and len(_TIMESTAMPS) < _TIMESTAMPS_MAX:
                _TIMESTAMPS[node.value] = value
        else:
            raise Unsupported
    elif isinstance(node, SequenceNode) and tag == _SEQ:
        active.add(key)
        # Plain strings, the bulk of frontmatter, inline: a call per scalar is most of the cost.
        value = [
            child.value
            if child.tag == _STR and type(child) is ScalarNode
            else _build(loader, child, memo, active)
            for child in node.value
        ]
        active.discard(key)
    elif isinstance(node, MappingNode) and tag == _MAP:
        active.add(key)
        value = {}
        for key_node, value_node in node.value:
            if type(key_node) is not ScalarNode or key_node.tag not in _KEY_TAGS:
                raise Unsupported  # merge keys `<<`, complex keys
            k = key_node.value if key_node.tag == _STR else _build(loader, key_node, memo, active)
            if value_node.tag == _STR and type(value_node) is ScalarNode:
                value[k] = value_node.value
            else:
                value[k] = _build(loader, value_node, memo, active)
        active.discard(key)
    else:
        raise Unsupported
    memo[key] = value
    return value
