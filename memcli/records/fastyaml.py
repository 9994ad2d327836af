"""Lean reading of the plain YAML that frontmatter nearly always is: without PyYAML's composer for
the commonest shapes, and without its general constructor for the rest.

`read_plain` reads, line by line, a frontmatter that is a mapping of simple keys to one-line
scalars, flow lists of plain words, block lists of those or of one-level mappings, and one-level
mappings — what memcli's tools, agents and people write. It uses PyYAML's own resolver and scalar
constructors, so every value is the one PyYAML gives; on anything else (comments, multi-line or
escaped scalars, tabs, deeper nesting, a key YAML reads as a bool or number, a duplicate key, a
value PyYAML would reject) it answers None and the caller composes with PyYAML. Composing costs
~100 us a record (libyaml builds a node, two marks and a resolver call per scalar); this ~30.

`construct` then builds what a composed node holds: PyYAML's libyaml binding parses and composes
in C, but builds Python objects in pure Python through a general machinery (generators,
deep/shallow passes, tag dispatch). Frontmatter is mappings, lists and core-schema scalars, so
those are built directly here — scalars through PyYAML's own scalar constructors, so values are
identical. Anything else (merge keys, explicit or unknown tags, complex keys, self-referencing
anchors) raises `Unsupported`, and the caller uses the full constructor, which gives the same
result or the same error as before.
"""

from __future__ import annotations

import re
from typing import Any

from yaml.constructor import SafeConstructor
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode
from yaml.resolver import Resolver

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


# --- read_plain ---------------------------------------------------------------------------------

_NOT_TEXT = r"\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff"  # with tab, NEL, LS, PS, BOM
_KEY = r"[A-Za-z_][A-Za-z0-9_-]*"
# A plain scalar on one line: YAML-printable characters minus tab, the line breaks YAML 1.1 adds
# (NEL, LS, PS) and the BOM; not starting with a space or an indicator; no ": " (a mapping), no " #" (a
# comment), no ":" at the end. Possessive: a line that does not read fails at once.
_PLAIN = rf"""(?![\ \-?:,\[\]{{}}#&*!|>'"%@`])(?:[^:#{_NOT_TEXT}]++|:(?!\ |$)|(?<!\ )\#)++"""
_WORD = r"[A-Za-z0-9_][A-Za-z0-9_.+-]*"  # a plain item of a flow list
# One line of a plain frontmatter: indentation, then `- ` (a list item), then `key:` and one value
# (quoted without escapes, a flow list of plain words, or plain), either or both (trailing spaces
# stripped before).
_LINE = re.compile(
    rf"""( *)(?:(-\ +))?(?:({_KEY}):(?:\ +|$))?"""
    rf"""(?:"([^"\\{_NOT_TEXT}]*)"|'([^'{_NOT_TEXT}]*)'"""
    rf"""|(\[\ *((?:{_WORD})(?:\ *,\ *{_WORD})*)?\ *\])|({_PLAIN}))?"""
)
_RESOLVER = Resolver()
_CONSTRUCTOR = SafeConstructor()
# The first characters PyYAML resolves a plain scalar by (`true`, `~`, `12`, `2026-`...): text
# starting with any other is a string (the rest of a record's text, nearly).
_FIRSTS = frozenset(Resolver.yaml_implicit_resolvers)
_ANY_FIRST = None in _FIRSTS  # a resolver for text starting with anything: then none is skipped
_VALUES: dict[str, Any] = {}  # plain text starting with one of _FIRSTS → its value (immutable) or _NO
_VALUES_MAX = 50_000


def read_plain(front: str) -> tuple[dict[str, Any], dict[str, int]] | None:
    """(value, top-level key → line) of a plain frontmatter — exactly what composing and
    constructing it with PyYAML gives — or None for one it does not read (see the module
    docstring): top-level keys, each with a one-line value, or with a block below it: a list (of
    one-line values, or of mappings of keys with one-line values) or a mapping of keys with
    one-line values."""
    if "\t" in front:
        return None
    data: dict[str, Any] = {}
    key_lines: dict[str, int] = {}
    top: str | None = None  # the top-level key written without a value: a block may follow
    block: list[Any] | dict[str, Any] | None = None  # the block being read under `top`
    column = 0  # where the block's `- ` or keys start
    item: dict[str, Any] | None = None  # the mapping of the list item being read
    item_column = 0
    for n, line in enumerate(front.split("\n")):
        line = line.rstrip(" ")
        if not line:
            continue  # a blank line
        found = _LINE.fullmatch(line)
        if found is None:
            return None
        indent, dash, key, double, single, flow, words, plain = found.groups()
        if plain is not None:
            value = _plain(plain)
        elif double is not None:
            value = double
        elif single is not None:
            value = single
        elif flow is not None:
            value = [_plain(w.strip(" ")) for w in words.split(",")] if words else []
            if _NO in value:
                return None
        else:
            value = _NONE
        if value is _NO or (key is not None and key[0] in _FIRSTS and _plain(key) != key):
            return None
        depth = len(indent)
        if depth == 0 and dash is None:  # a top-level key
            if key is None or key in data:
                return None
            key_lines[key] = n + 2  # +1 for 1-based, +1 for the opening '---'
            top = key if value is _NONE else None  # only a key without a value takes a block
            block = item = None
            data[key] = None if value is _NONE else value
            continue
        if top is None or value is _NONE or (dash is None and key is None):
            return None  # a scalar going on, a block under a valued key, a nested block, a null item
        if dash is not None:  # a list item
            if block is None:
                block, column = [], depth
                data[top] = block
            elif type(block) is not list or depth != column:
                return None
            if key is None:
                block.append(value)
                item = None
            else:
                item, item_column = {key: value}, depth + len(dash)
                block.append(item)
        else:  # a key of a mapping: the block's, or the list item's
            if block is None:
                block, column = {}, depth
                data[top] = block
            target = block if type(block) is dict else item
            if target is None or depth != (column if target is block else item_column) or key in target:
                return None
            target[key] = value
    return data, key_lines


_NO = object()  # what _plain gives for a scalar read_plain does not read
_NONE = object()  # no value on the line


def _plain(text: str) -> Any:
    """A plain scalar's value, as PyYAML resolves and constructs it; _NO for one it would not build
    (`=`, `<<`: a tag with no safe constructor, or a merge key; an impossible date)."""
    if text[0] not in _FIRSTS and not _ANY_FIRST:
        return text
    value = _VALUES.get(text, _MISSING)
    if value is _MISSING:
        tag = _RESOLVER.resolve(ScalarNode, text, (True, False))
        if tag == _STR:
            value = text
        elif tag not in _SCALARS:
            value = _NO
        else:
            try:
                value = _build(_CONSTRUCTOR, ScalarNode(tag, text), {}, set())
            except (BadValue, Unsupported):
                value = _NO
        if len(_VALUES) < _VALUES_MAX:
            _VALUES[text] = value
    return value


_MISSING = object()
