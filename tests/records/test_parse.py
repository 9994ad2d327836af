"""`parse_record` never raises, and turns every problem into data with a position."""

from __future__ import annotations

import datetime as dt

import pytest
from pydantic import ValidationError

from memcli.records import Source, parse_record
from memcli.records.models import Decision, _timestamp
from memcli.workspace import Kind

TS = "2026-04-27T10:00:00+09:00"
DECISION = f"""---
created_at: {TS}
updated_at: {TS}
status: open
sources:
  - session_id: s1
    range: [0, 3]
---
Body line 1
"""


def _parse(text: str | bytes, kind: Kind = Kind.DECISION, slug: str = "x"):
    data = text.encode("utf-8") if isinstance(text, str) else text
    return parse_record(f"memory/decisions/{slug}.md", data, kind, slug)


def _issues(rec) -> set[tuple[str, str, int | None]]:
    return {(i.field, i.problem, i.line) for i in rec.issues}


@pytest.mark.parametrize(
    "value",
    [
        TS,
        "2026-04-27T01:00:00Z",
        "2026-04-27t01:00:00z",
        "2026-04-27 10:00:00+09:00",
        "2026-04-27T10:00:00.123-05:00",
        dt.datetime(2026, 4, 27, 1, tzinfo=dt.UTC),
    ],
)
def test_timestamps_accepted(value) -> None:
    assert _timestamp(value).utcoffset() is not None


@pytest.mark.parametrize(
    "value",
    [
        "2026-04-27T10:00:00",
        "2026-04-27",
        "20260427T100000+0900",
        "2026-04-27T10:00+09:00",
        "2026-W17-1T10:00:00+09:00",
        "2026-13-01T00:00:00Z",
        "yesterday",
        "",
        1714000000,
        dt.datetime(2026, 4, 27, 10),
        dt.date(2026, 4, 27),
        None,
        True,
    ],
)
def test_timestamps_rejected(value) -> None:
    with pytest.raises(ValueError):
        _timestamp(value)


@pytest.mark.parametrize(
    "raw",
    [
        {"session_id": "", "range": [0, 1]},
        {"session_id": "  ", "range": [0, 1]},
        {"session_id": 12, "range": [0, 1]},
        {"session_id": "s", "range": [5, 2]},
        {"session_id": "s", "range": [-1, 2]},
        {"session_id": "s", "range": [0]},
        {"session_id": "s", "range": [0, 1, 2]},
        {"session_id": "s", "range": [0.5, 1]},
        {"session_id": "s", "range": [True, 1]},
        {"session_id": "s", "range": "0-1"},
        {"session_id": "s"},
        {"session_id": "s", "range": [0, 1], "extra": 1},
    ],
)
def test_source_rejects(raw) -> None:
    with pytest.raises(ValidationError):
        Source.model_validate(raw)


def test_source_accepts_a_single_entry_span() -> None:
    assert Source.model_validate({"session_id": "s", "range": [4, 4]}).key == ("s", 4, 4)


def test_a_clean_decision() -> None:
    rec = _parse(DECISION)
    assert rec.ok and rec.issues == [] and isinstance(rec.model, Decision)
    assert rec.body == "Body line 1\n"
    assert rec.key_lines == {"created_at": 2, "updated_at": 3, "status": 4, "sources": 5}


def test_one_issue_per_field_even_with_several_errors_inside_it() -> None:
    text = DECISION.replace(
        "  - session_id: s1\n    range: [0, 3]\n",
        "  - session_id: ''\n    range: [5, 2]\n  - session_id: s2\n    range: [-1, 0]\n",
    )
    assert _issues(_parse(text)) == {("sources", "invalid", 5)}


def test_missing_and_invalid_fields_are_separate_issues() -> None:
    text = DECISION.replace(f"created_at: {TS}\n", "").replace("status: open", "status: 7")
    assert _issues(_parse(text)) == {("created_at", "missing", None), ("status", "invalid", 3)}


@pytest.mark.parametrize(
    ("key", "suggested"),
    [("replacedby", "replaced_by"), ("Status", "status"), ("source", "sources"), ("updatedAt", "updated_at")],
)
def test_unknown_field_near_miss_names_the_field(key: str, suggested: str) -> None:
    rec = _parse(DECISION.replace("---\nBody", f"{key}: x\n---\nBody"))
    (issue,) = [i for i in rec.issues if i.problem == "unknown"]
    assert (issue.field, issue.line) == (key, 8)
    assert f"{suggested!r}" in issue.message


def test_unknown_field_without_a_near_miss_is_kept_quietly() -> None:
    rec = _parse(DECISION.replace("---\nBody", "tags: [db, ops]\n---\nBody"))
    (issue,) = rec.issues
    assert issue.problem == "unknown" and "did you mean" not in issue.message


def test_seed_spelling_is_an_alias_and_both_is_a_conflict() -> None:
    knowledge = f"""---
created_at: {TS}
updated_at: {TS}
kind: howto
description: d
model_invokation: true
user_invocable: false
last_sources: []
---
"""
    rec = _parse(knowledge, Kind.KNOWLEDGE)
    assert _issues(rec) == {("model_invokation", "deprecated", 6)}
    assert rec.model is not None and rec.model.model_invocation is True
    both = _parse(
        knowledge.replace("model_invokation: true", "model_invokation: true\nmodel_invocation: false"),
        Kind.KNOWLEDGE,
    )
    assert _issues(both) == {("model_invokation", "conflict", 6)}


@pytest.mark.parametrize(
    ("data", "line"),
    [
        (b"", 1),
        (b"no frontmatter\n", 1),
        (b"---\na: 1\n", 1),
        (b"---\na: [1\n---\n", 2),  # where the bracket opened, not where the parser gave up
        (b"---\n- 1\n---\n", 2),
        (b"---\nplain\n---\n", 2),
        (b"---\na: 1\na: 2\n---\n", 3),
        (b"---\nok: 1\n\x80\n---\n", 3),
        (b"\x00\x01", None),
        (b"---\na: !!python/object:os.system x\n---\n", 2),
    ],
)
def test_parse_errors_carry_a_line(data: bytes, line: int | None) -> None:
    rec = _parse(data)
    assert not rec.ok and rec.meta is None
    assert rec.parse_line == line


def test_bom_and_crlf_read_cleanly() -> None:
    rec = _parse(b"\xef\xbb\xbf" + DECISION.replace("\n", "\r\n").encode())
    assert rec.ok and rec.issues == [] and rec.body == "Body line 1\n"


def test_japanese_text_and_keys() -> None:
    rec = _parse(
        DECISION.replace("Body line 1", "本文。日本語のテキスト").replace(
            "---\n本文", "タグ: 設計\n---\n本文"
        )
    )
    assert rec.body == "本文。日本語のテキスト\n"
    assert _issues(rec) == {("タグ", "unknown", 8)}


@pytest.mark.parametrize(("front", "line", "says"), [
    ("title: Cache: per-user\n", 2, "a value that contains ': ' must be quoted"),
    ("tags: [a, b\nstatus: open\ncreated_at: x\n", 2, "a [ opened here is never closed"),
    ("sources:\n  - {session_id: s, range: [1, 2]\nstatus: open\n", 3, "close the { with }"),
    ("description: 'unterminated\nstatus: open\n", 2, "close the quote"),
])
def test_yaml_errors_say_the_likely_fix_where_it_goes(front: str, line: int, says: str) -> None:
    rec = _parse(f"---\n{front}---\nBody.\n".encode())
    assert not rec.ok and rec.parse_line == line
    assert says in rec.parse_error and f"line {line}" in rec.parse_error
