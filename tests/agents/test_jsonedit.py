"""Surgical JSON edits: every other byte kept, insert and remove exact inverses, comments kept."""

from __future__ import annotations

import json

import pytest

from memcli.agents import jsonedit
from memcli.agents.jsonedit import Document, JsonSyntaxError, blank_comments, insert, remove

HOOK = {"hooks": [{"type": "command", "command": "memcli extract --hook"}]}

LAYOUTS = {
    "two-space": '{\n  "hooks": {\n    "Stop": [\n      {"hooks": []}\n    ]\n  },\n  "x": 1\n}\n',
    "four-space": '{\n    "hooks": {\n        "Stop": [\n            {"hooks": []}\n        ]\n    }\n}\n',
    "tabs": '{\n\t"hooks": {\n\t\t"Stop": [\n\t\t\t{"hooks": []}\n\t\t]\n\t}\n}\n',
    "crlf": '{\r\n  "hooks": {\r\n    "Stop": [\r\n      {"hooks": []}\r\n    ]\r\n  }\r\n}\r\n',
    "one-line": '{"hooks": {"Stop": [{"hooks": []}]}, "theme": "dark"}',
    "comments": ('// user settings\n{\n  /* hooks */ "hooks": {\n    "Stop": [\n      {"hooks": []} // mine\n'
                 '    ]\n  },\n  "url": "http://x//y" /* not a comment inside */\n}\n'),
    "bracket-after-value": '{\n  "hooks": {\n    "Stop": [\n      {"hooks": []}]}}\n',
    "no-hooks": '{\n  "model": "gemini-2.5-pro",\n  "日本語": "値"\n}',
    "empty-object": "{}\n",
    "empty-array": '{\n  "hooks": {\n    "Stop": []\n  }\n}\n',
    "empty-file": "",
}


def _parsed(text: str) -> object:
    return json.loads(blank_comments(text)) if text.strip() else None


@pytest.mark.parametrize("name", sorted(LAYOUTS))
def test_append_to_array_then_remove_gives_the_same_bytes(name: str) -> None:
    before = LAYOUTS[name]
    after = insert(Document.parse(before), ["hooks", "Stop"], None, HOOK)
    data = _parsed(after)
    assert data["hooks"]["Stop"][-1] == HOOK  # type: ignore[index]
    old = _parsed(before) or {}
    old_stop = old.get("hooks", {}).get("Stop", [])  # type: ignore[union-attr]
    assert data["hooks"]["Stop"][:-1] == old_stop  # type: ignore[index]
    if "//" in before:
        assert "// user settings" in after and "// mine" in after and "/* hooks */" in after
    doc = Document.parse(after)
    index = len(doc.find(["hooks", "Stop"]).items) - 1  # type: ignore[union-attr]
    back = remove(doc, ["hooks", "Stop"], index)
    if name in ("empty-array", "empty-object", "empty-file"):
        assert _parsed(back) in ({"hooks": {}}, {}) or back == before  # containers memcli emptied go
    else:
        assert back == before


@pytest.mark.parametrize("name", ["two-space", "tabs", "crlf", "one-line", "comments", "no-hooks"])
def test_add_member_then_remove_gives_the_same_bytes(name: str) -> None:
    before = LAYOUTS[name]
    server = {"command": "memcli", "args": ["mcp"]}
    after = insert(Document.parse(before), ["mcpServers"], "memcli", server)
    assert _parsed(after)["mcpServers"] == {"memcli": server}  # type: ignore[index]
    if "\r\n" in before:
        assert "\n" not in after.replace("\r\n", "")
    doc = Document.parse(after)
    assert remove(doc, ["mcpServers"], 0) == before


def test_indentation_follows_the_file() -> None:
    after = insert(Document.parse(LAYOUTS["four-space"]), ["hooks", "Stop"], None, HOOK)
    assert '\n            {\n                "hooks": [' in after


def test_removing_a_middle_item_keeps_its_neighbours() -> None:
    text = '{\n  "a": 1,\n  "b": 2, // two\n  "c": 3\n}\n'
    doc = Document.parse(text)
    assert remove(doc, [], 1) == '{\n  "a": 1,\n  "c": 3\n}\n'
    assert remove(doc, [], 0) == '{\n  "b": 2, // two\n  "c": 3\n}\n'
    assert remove(Document.parse('{"a": 1, "b": 2}'), [], 0) == '{"b": 2}'


@pytest.mark.parametrize("text", ['{"a": 1,}', '{"a": }', "{", '{"a": 1} x', "/* open", "[1] [2]"])
def test_broken_json_is_rejected_with_a_position(text: str) -> None:
    with pytest.raises(JsonSyntaxError):
        Document.parse(text)


def test_comment_markers_inside_strings_are_text() -> None:
    text = '{"u": "a//b", "v": "/* no */", "w": "q\\"//"}'
    assert blank_comments(text) == text
    assert jsonedit.Document.parse(text).data == {"u": "a//b", "v": "/* no */", "w": 'q"//'}
