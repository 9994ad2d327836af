"""A Markdown file as blocks with their line numbers: the entries of a document source.

A block is what a reader of the file takes as one statement: a heading, a paragraph, one top-level
list item (with what is nested in it), a code block, a table, a quotation, an HTML block. Lines
are 1-based and inclusive, as an editor, `grep -n` and `memcli source` show them. The parsing is
CommonMark (markdown-it-py, with tables), so a `#` inside a code block is not a heading and a list
item running over several lines stays one block. YAML frontmatter between `---` lines at the top
is its own block, and its fields are returned parsed (a rule file's scope lives there).
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from memcli import plainyaml
from memcli.values import frozen

_FIELD = re.compile(r"^([A-Za-z_][\w-]*):\s*(.*)$")
_CONTAINERS = {"bullet_list_open", "ordered_list_open"}
_OPENERS = {"heading_open", "paragraph_open", "table_open", "blockquote_open"}
_LEAVES = {"fence", "code_block", "html_block", "hr"}
_KIND = {"heading_open": "heading", "paragraph_open": "paragraph", "table_open": "table",
         "blockquote_open": "quote", "fence": "code", "code_block": "code", "html_block": "html",
         "hr": "rule"}


@frozen
class Block:
    start: int  # first line, 1-based
    end: int  # last line, inclusive
    kind: str  # frontmatter | heading | paragraph | item | code | table | quote | html | rule
    text: str  # the lines as written
    level: int = 0  # a heading's level (1 for `#`)
    trail: tuple[str, ...] = ()  # the headings this block sits under, outermost first


@frozen
class Parsed:
    meta: dict[str, Any]  # the frontmatter's fields ({} without one, or when it is not a YAML mapping)
    blocks: tuple[Block, ...]
    lines: int
    meta_error: str | None = None  # why the frontmatter could not be read


@cache
def _parser() -> Any:
    from markdown_it import MarkdownIt  # here: a hook's start-up loads the documents' declaration, not this

    return MarkdownIt("commonmark").enable("table")


def _frontmatter(lines: list[str]) -> int:
    """The number of lines the frontmatter takes (0 without one): `---` first, then `---` or `...`."""
    if not lines or lines[0].rstrip() != "---":
        return 0
    for i, line in enumerate(lines[1:], start=1):
        if line.rstrip() in ("---", "..."):
            return i + 1
    return 0  # never closed: a thematic break, not frontmatter


def _meta(lines: list[str], size: int) -> tuple[dict[str, Any], str | None]:
    import yaml  # here: as above; only a document with frontmatter needs it

    inner = lines[1 : size - 1]
    try:
        data = plainyaml.load("\n".join(inner))
    except plainyaml.Refused as exc:
        # anchors and aliases in a rule file: read leniently as below, and said (an alias bomb
        # would otherwise be expanded by whatever walks the fields: the import's scope line)
        return _loose(inner), str(exc)
    except yaml.YAMLError:
        # Rule files are read by their agents leniently: Cursor takes `globs: **/*.ts`, which YAML
        # reads as an alias and refuses. Plain `key: value` lines are read as such.
        data = _loose(inner)
        if not data:
            return {}, "frontmatter is not YAML"
    if data is None:
        return {}, None
    return (data, None) if isinstance(data, dict) else ({}, "frontmatter is not a mapping of fields")


def _loose(lines: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for line in lines:
        match = _FIELD.match(line)
        if match:
            value = match.group(2).strip().strip("\"'")
            out[match.group(1)] = {"true": True, "false": False}.get(value.lower(), value)
    return out


def _heading_text(line: str) -> str:
    text = line.strip().lstrip("#").strip().rstrip("#").strip()
    return text or line.strip()


def parse(text: str) -> Parsed:
    lines = text.splitlines()
    size = _frontmatter(lines)
    blocks: list[Block] = []
    meta: dict[str, Any] = {}
    error = None
    if size:
        meta, error = _meta(lines, size)
        blocks.append(Block(1, size, "frontmatter", "\n".join(lines[:size])))
    body = "\n".join(lines[size:])
    trail: list[tuple[int, str]] = []  # (level, text) of the headings open here
    for kind, first, stop in _spans(_parser().parse(body)):
        start, end = first + size, stop + size  # 0-based, end exclusive
        while end > start and not lines[end - 1].strip():
            end -= 1  # a list item's span takes the blank line after it
        if end <= start:
            continue
        chunk = "\n".join(lines[start:end])
        if kind.startswith("heading"):
            level = int(kind[len("heading"):])
            title = _heading_text(lines[start]) if end - start == 1 else chunk.splitlines()[0].strip()
            while trail and trail[-1][0] >= level:
                trail.pop()
            blocks.append(Block(start + 1, end, "heading", chunk, level, tuple(t for _, t in trail)))
            trail.append((level, title))
        else:
            blocks.append(Block(start + 1, end, kind, chunk, 0, tuple(t for _, t in trail)))
    return Parsed(meta, tuple(blocks), len(lines), error)


def _spans(tokens: list[Any]) -> list[tuple[str, int, int]]:
    """(kind, first line, end line exclusive) of every top-level block; a list gives one per item."""
    out: list[tuple[str, int, int]] = []
    depth_of_list: int | None = None  # token level of the top-level list being walked
    for token in tokens:
        if depth_of_list is not None:
            if token.type == "list_item_open" and token.level == depth_of_list + 1 and token.map:
                out.append(("item", token.map[0], token.map[1]))
            elif token.type in ("bullet_list_close", "ordered_list_close") and token.level == depth_of_list:
                depth_of_list = None
            continue
        if token.level != 0 or not token.map and token.type not in _CONTAINERS:
            continue
        if token.type in _CONTAINERS:
            depth_of_list = token.level
        elif token.type == "heading_open":
            out.append((f"heading{int(token.tag[1:])}", token.map[0], token.map[1]))
        elif token.type in _OPENERS or token.type in _LEAVES:
            out.append((_KIND[token.type], token.map[0], token.map[1]))
    return out
