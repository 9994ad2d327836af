"""Surgical edits of JSON files that may hold `//` and `/* */` comments (Gemini CLI's settings are
read through strip-json-comments; users comment Claude Code's too).

Re-serialising a parsed file would lose comments, key order quirks and the user's layout, so each
edit inserts or removes exactly the text of one member or array element and keeps every other
byte. Insertion and removal are inverses: removing what `insert` added gives the file back as it
was. Trailing commas are rejected, as every one of these agents rejects them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any


class JsonSyntaxError(ValueError):
    """Not JSON (with comments); the message carries line and column."""


@dataclass
class Node:
    kind: str  # object | array | scalar
    start: int
    end: int  # exclusive
    items: list[Item] = field(default_factory=list)


@dataclass
class Item:
    """An object member (`key` set; `start` is the key's quote) or an array element."""

    key: str | None
    start: int
    value: Node


def blank_comments(text: str) -> str:
    """`text` with every comment replaced by spaces (newlines kept): same offsets, plain JSON."""
    out = list(text)
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
            i += 1
        elif text.startswith("//", i):
            while i < n and text[i] not in "\r\n":
                out[i] = " "
                i += 1
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            if end < 0:
                raise JsonSyntaxError(f"unterminated /* comment at {_where(text, i)}")
            for j in range(i, end + 2):
                if text[j] not in "\r\n":
                    out[j] = " "
            i = end + 2
        else:
            i += 1
    return "".join(out)


def _where(text: str, pos: int) -> str:
    line = text.count("\n", 0, pos) + 1
    return f"line {line} column {pos - (text.rfind(chr(10), 0, pos) + 1) + 1}"


@dataclass
class Document:
    """A parsed file: its text, the comment-free twin used for structure, and the root node."""

    text: str
    plain: str
    root: Node | None  # None: an empty file
    data: Any

    @classmethod
    def parse(cls, text: str) -> Document:
        plain = blank_comments(text)
        if not plain.strip():
            return cls(text, plain, None, None)
        try:
            data = json.loads(plain)
            root, _ = _Parser(plain).value(_skip(plain, 0))
        except json.JSONDecodeError as exc:
            raise JsonSyntaxError(f"{exc.msg} at line {exc.lineno} column {exc.colno}") from None
        except RecursionError:  # a hostile or broken file: thousands of nested brackets
            raise JsonSyntaxError("nested too deeply to be a settings file") from None
        return cls(text, plain, root, data)

    def find(self, path: Sequence[str | int]) -> Node | None:
        """The node at `path` (object keys, array indices), or None."""
        node = self.root
        for key in path:
            if node is None:
                return None
            if isinstance(key, int):
                ok = node.kind == "array" and 0 <= key < len(node.items)
                node = node.items[key].value if ok else None
            elif node.kind == "object":  # a key given twice: the last one, as JSON readers take it
                node = next((it.value for it in reversed(node.items) if it.key == key), None)
            else:
                return None
        return node


def _skip(plain: str, i: int) -> int:
    while i < len(plain) and plain[i] in " \t\r\n":
        i += 1
    return i


class _Parser:
    """Structure only: `json.loads` has already validated the text."""

    def __init__(self, plain: str) -> None:
        self.s = plain

    def value(self, i: int) -> tuple[Node, int]:
        s = self.s
        if s[i] in "{[":
            kind, close = ("object", "}") if s[i] == "{" else ("array", "]")
            node = Node(kind, i, i)
            i = _skip(s, i + 1)
            while s[i] != close:
                key = None
                start = i
                if kind == "object":
                    key_node, i = self.value(i)
                    key = json.loads(s[key_node.start:key_node.end])
                    i = _skip(s, _skip(s, i) + 1)  # the colon
                item, i = self.value(i)
                node.items.append(Item(key, start, item))
                i = _skip(s, i)
                if s[i] == ",":
                    i = _skip(s, i + 1)
            node.end = i + 1
            return node, i + 1
        if s[i] == '"':
            j = i + 1
            while s[j] != '"':
                j += 2 if s[j] == "\\" else 1
            return Node("scalar", i, j + 1), j + 1
        m = re.compile(r"[^\s,\]}]+").match(s, i)
        assert m is not None
        return Node("scalar", i, m.end()), m.end()


# ---- layout helpers -----------------------------------------------------------------------------

def _newline(text: str) -> str:
    return "\r\n" if "\r\n" in text else "\n"


def _line_start(text: str, pos: int) -> int:
    return text.rfind("\n", 0, pos) + 1


def _line_end(text: str, pos: int) -> int:
    end = text.find("\n", pos)
    return len(text) if end < 0 else end


def _indent_of(text: str, pos: int) -> str | None:
    """The whitespace before `pos` on its line, or None when something else precedes it."""
    before = text[_line_start(text, pos):pos]
    return before if not before.strip() else None


def _unit(text: str) -> str:
    """The file's indentation step: its shallowest indentation (2 spaces in a file without any)."""
    indents = re.findall(r"\n([ \t]+)\S", text)
    return min(indents, key=len) if indents else "  "


def _leading(text: str, pos: int) -> str:
    """The indentation of the line holding `pos`."""
    start = _line_start(text, pos)
    return text[start:_skip(text, start)].replace("\r", "").replace("\n", "")


def _render(value: Any, indent: str, unit: str, nl: str) -> str:
    return json.dumps(value, indent=unit, ensure_ascii=False).replace("\n", nl + indent)


def _alone(text: str, start: int, end: int) -> bool:
    """Whether [start, end) stands on lines of its own (only blanks around it)."""
    after = text[end:_line_end(text, end)]
    return _indent_of(text, start) is not None and not after.strip()


# ---- edits --------------------------------------------------------------------------------------

def insert(doc: Document, path: list[str], key: str | None, value: Any) -> str:
    """The text with `value` added: as member `key` of the object at `path`, or appended to the
    array there (`key` None). Missing containers on `path` are created around the value."""
    text, plain, nl = doc.text, doc.plain, _newline(doc.text)
    unit = _unit(text)
    if doc.root is None:
        wrapped = _wrap(path, key, value)
        return text + json.dumps(wrapped, indent=len(unit), ensure_ascii=False) + nl
    node, depth = doc.root, 0
    while depth < len(path) and (child := doc.find(path[:depth + 1])) is not None:
        node, depth = child, depth + 1
    if depth < len(path):  # create the missing containers as one new member
        key, value = path[depth], _wrap(path[depth + 1:], key, value)
    if node.kind != ("array" if key is None else "object"):
        raise JsonSyntaxError(f"expected an {'array' if key is None else 'object'} at {'.'.join(path)}")
    return _add(text, plain, node, key, value, unit, nl)


def _wrap(path: list[str], key: str | None, value: Any) -> Any:
    inner: Any = [value] if key is None else {key: value}
    for name in reversed(path):
        inner = {name: inner}
    return inner


def _add(text: str, plain: str, node: Node, key: str | None, value: Any, unit: str, nl: str) -> str:
    close = node.end - 1
    prefix = "" if key is None else json.dumps(key, ensure_ascii=False) + ": "
    base = _leading(text, node.start)
    if not node.items:
        indent = base + unit
        member = prefix + _render(value, indent, unit, nl)
        inner = text[node.start + 1:close]
        keep = inner.rstrip() + nl if inner.strip() else nl  # comments inside `{}` stay
        return text[:node.start + 1] + keep + indent + member + nl + base + text[close:]
    last = node.items[-1]
    single_line = "\n" not in plain[node.start:node.end]
    if single_line:
        member = prefix + json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
        return text[:last.value.end] + ", " + member + text[last.value.end:]
    indent = _leading(text, last.start) if "\n" in plain[node.start:last.start] else base + unit
    member = prefix + _render(value, indent, unit, nl)
    if _indent_of(plain, close) is not None:  # the closing bracket has a line of its own
        at = _line_start(plain, close)
        return text[:last.value.end] + "," + text[last.value.end:at] + indent + member + nl + text[at:]
    return text[:last.value.end] + "," + nl + indent + member + text[last.value.end:]


def remove(doc: Document, path: list[str | int], index: int | str) -> str:
    """The text without item `index` of the container at `path` (a key: that member, its last
    occurrence when given twice); a container left empty is removed from its parent too (the root
    object stays, as `{}`)."""
    node = doc.find(path)
    assert node is not None and node.kind in ("object", "array")
    if isinstance(index, str):
        index = max(i for i, it in enumerate(node.items) if it.key == index)
    if len(node.items) == 1 and path:
        parent = doc.find(path[:-1])
        assert parent is not None
        last = path[-1]
        keys = [it.key for it in parent.items]
        pos = last if isinstance(last, int) else len(keys) - 1 - keys[::-1].index(last)  # the last
        return remove(doc, path[:-1], pos)
    text, plain = doc.text, doc.plain
    if len(node.items) == 1:  # the root object itself
        return text[:node.start] + ("{}" if node.kind == "object" else "[]") + text[node.end:]
    item = node.items[index]
    start, end = item.start, item.value.end
    if index == len(node.items) - 1:  # the last one: the comma before it goes
        comma = plain.index(",", node.items[index - 1].value.end)
        if _alone(plain, start, end):
            cut_from, cut_to = _line_start(plain, start), min(len(text), _line_end(plain, end) + 1)
            return text[:comma] + text[comma + 1:cut_from] + text[cut_to:]
        return text[:comma] + text[end:]
    comma = plain.index(",", end)
    nxt = node.items[index + 1].start
    if _alone(plain, start, comma + 1) and _indent_of(plain, nxt) is not None:
        return text[:_line_start(plain, start)] + text[_line_end(plain, comma) + 1:]
    return text[:start] + text[_skip(plain, comma + 1):]
