"""A Markdown file as blocks: positions (1-based, inclusive) and kinds, compared exactly."""

from __future__ import annotations

import pytest

from memcli.agents.documents.markdown import parse

CASES = [
    ("a paragraph over two lines, then a list of two items",
     "Intro\ncontinues.\n\n- one\n- two\n",
     [(1, 2, "paragraph"), (4, 4, "item"), (5, 5, "item")]),
    ("a nested list stays in its top-level item; the blank line after it is not part of it",
     "- Tests:\n  - run `pytest -q`\n  - never `-n auto`\n\n- last\n",
     [(1, 3, "item"), (5, 5, "item")]),
    ("a `#` inside a code block is no heading",
     "## Build\n\n```sh\n# comment\nmake\n```\n",
     [(1, 1, "heading"), (3, 6, "code")]),
    ("a table and a quotation are one block each",
     "| a | b |\n|---|---|\n| 1 | 2 |\n\n> quoted\n> more\n",
     [(1, 3, "table"), (5, 6, "quote")]),
    ("frontmatter is its own block; the body's lines keep the file's numbers",
     "---\napplyTo: \"**/*.py\"\n---\nUse fixtures.\n",
     [(1, 3, "frontmatter"), (4, 4, "paragraph")]),
    ("a setext heading, an ordered list, a thematic break, Japanese text",
     "見出し\n======\n\n1. 一つ目\n2. 二つ目\n\n---\n日本語の段落。\n",
     [(1, 2, "heading"), (4, 4, "item"), (5, 5, "item"), (7, 7, "rule"), (8, 8, "paragraph")]),
    ("an HTML comment is a block (kinds.py leaves it out)",
     "<!-- note -->\n\ntext\n",
     [(1, 1, "html"), (3, 3, "paragraph")]),
    ("an empty file has no blocks", "", []),
]


@pytest.mark.parametrize("text, expected", [(t, e) for _d, t, e in CASES], ids=[d for d, _t, _e in CASES])
def test_block_spans(text: str, expected: list[tuple[int, int, str]]) -> None:
    assert [(b.start, b.end, b.kind) for b in parse(text).blocks] == expected


def test_each_block_knows_the_headings_it_sits_under() -> None:
    doc = parse("# Project\n\n## Tooling\n\n- pnpm\n\n### CI\n\nruns nightly\n\n## Style\n\n- tabs\n")
    assert [(b.text, b.trail) for b in doc.blocks if b.kind != "heading"] == [
        ("- pnpm", ("Project", "Tooling")), ("runs nightly", ("Project", "Tooling", "CI")),
        ("- tabs", ("Project", "Style"))]


@pytest.mark.parametrize("front, meta, error", [
    ("description: TS\nglobs: src/**/*.ts\nalwaysApply: false",
     {"description": "TS", "globs": "src/**/*.ts", "alwaysApply": False}, None),
    # Cursor writes globs unquoted; YAML reads `**` as an alias and refuses: read as plain fields
    ("globs: **/*.ts,**/*.tsx\nalwaysApply: true",
     {"globs": "**/*.ts,**/*.tsx", "alwaysApply": True}, None),
    ("paths:\n  - \"src/**\"", {"paths": ["src/**"]}, None),
    ("- a list", {}, "frontmatter is not a mapping of fields"),
    ("key: [unclosed", {"key": "[unclosed"}, None),  # plain `key: value` lines still read
    ('"unterminated', {}, "frontmatter is not YAML"),
])
def test_frontmatter_fields(front: str, meta: dict, error: str | None) -> None:
    doc = parse(f"---\n{front}\n---\nbody\n")
    assert (doc.meta, doc.meta_error) == (meta, error)
    assert doc.blocks[-1].start == front.count("\n") + 4  # the body keeps its line number


def test_an_unclosed_frontmatter_fence_is_a_thematic_break() -> None:
    doc = parse("---\ntext\n")
    assert doc.meta == {} and doc.blocks[0].kind == "rule"
