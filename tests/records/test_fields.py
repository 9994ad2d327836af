"""`fields.plainly_valid` passes a frontmatter without pydantic only where the model takes it: its
tables are the models' fields, and on valid and broken frontmatters of every kind it never says
valid where the model refuses (and says valid for the ordinary valid records, so the shortcut is
taken). A record checked either way parses to the same issues and the same model."""

from __future__ import annotations

import datetime as dt
import itertools
import random
from typing import Any

import pytest
from pydantic import ValidationError

from memcli.records import parse_record
from memcli.records.fields import FIELDS, plainly_valid
from memcli.records.models import MODELS
from memcli.workspace import Kind

TS = "2026-04-27T10:00:00+09:00"
SOURCE = {"session_id": "s1", "range": [0, 3]}
VALID: dict[Kind, dict[str, Any]] = {
    Kind.DECISION: {"created_at": TS, "updated_at": TS, "status": "open", "sources": [SOURCE]},
    Kind.REQUEST: {"created_at": TS, "updated_at": TS,
                   "sources": [SOURCE, {"session_id": "s2", "range": [4, 4]}]},
    Kind.KNOWLEDGE: {"created_at": TS, "updated_at": TS, "kind": "rule", "description": "One line.",
                     "model_invocation": True, "user_invocable": False, "last_sources": []},
    Kind.WORKFLOW: {"created_at": TS, "updated_at": TS, "description": "How to ship.", "auto_invoke": False,
                    "user_invocable": True, "requires": ["other-flow"]},
    Kind.SUMMARY: {"updated_at": TS},
}
# More valid values, field by field (each also tried on the others' fields).
ALSO_VALID: dict[str, list[Any]] = {
    "created_at": ["2026-04-27T01:00:00Z", "2026-04-27t01:00:00z", "2026-04-27 10:00:00-05:30",
                   "2026-04-27T10:00:00.123456+14:00", dt.datetime(2026, 4, 27, 1, tzinfo=dt.UTC),
                   dt.datetime(2026, 4, 27, 1, tzinfo=dt.timezone(dt.timedelta(hours=-9, minutes=-30)))],
    "anchors": [[], ["src/app.py"], [{"path": "src/app.py", "symbol": "main"}],
                [{"path": "a.py", "symbol": None}],
                ["./docs/x.md", {"path": "データ/設定.py", "symbol": ""}]],
    "replaced_by": [None, "new-way", " "],
    "status": ["resolved", "replaced"],
    "kind": ["term", "policy", "fact", "howto"],
    "description": ["日本語の説明。", "x" * 5000],
    "requires": [[], ["a", "b"]],
    "last_rewritten_from_range": [None, SOURCE, [SOURCE, {"session_id": "s3", "range": [1, 2]}], []],
}
ODD: list[Any] = [
    None, "", " ", "x", "\ud800", "open", "rule", True, False, 0, 1, -1, 2.5, 10**30, [], [None], [""],
    ["x", 1], [True], {}, {"path": "src/a.py"}, dt.date(2026, 4, 27), dt.datetime(2026, 4, 27, 10),
    "2026-04-27T10:00:00", "2026-04-27", "2026-13-01T00:00:00Z", "2026-W17-1T10:00:00+09:00", "１２３",
    ("a", "b"), {"a": 1},
    SOURCE, [SOURCE], [{"session_id": " ", "range": [0, 1]}], [{"session_id": "s", "range": [3, 1]}],
    [{"session_id": "s", "range": [-1, 1]}], [{"session_id": "s", "range": [0, 1, 2]}],
    [{"session_id": "s", "range": [True, 1]}], [{"session_id": "s", "range": ["0", 1]}],
    [{"session_id": "s", "range": [0.0, 1]}], [{"session_id": "s", "range": (0, 1)}],
    [{"session_id": "s", "range": [0, 1], "extra": 1}], [{"session_id": "s"}], [{"range": [0, 1]}],
    [{"session_id": 7, "range": [0, 1]}], [{"session_id": "\ud800", "range": [0, 1]}], [[0, 1]],
    ["/abs/path.py"], ["../up.py"], ["http://x/y"], ["C:\\x.py"], [{"path": ""}], [{"symbol": "f"}],
    [{"path": "a.py", "symbol": 3}], [{"path": "a.py", "line": 3}], [{"path": 3}], [{1: "a.py"}], [5],
    ["a", ""], [" "], ["\ud800"],
]


def _model_takes(kind: Kind, values: dict[str, Any]) -> bool:
    try:
        MODELS[kind].model_validate(values)
    except ValidationError:
        return False
    return True


def test_the_tables_are_the_models_fields() -> None:
    assert FIELDS.keys() == MODELS.keys()
    for kind, model in MODELS.items():
        assert list(FIELDS[kind]) == list(model.model_fields), kind
        assert {n: req for n, (_, req) in FIELDS[kind].items()} == {
            n: info.is_required() for n, info in model.model_fields.items()}, kind


def _variants(kind: Kind) -> list[dict[str, Any]]:
    base = VALID[kind]
    pool = ODD + [v for values in ALSO_VALID.values() for v in values]
    out = [dict(base), {**base, "title": "A field no model has"}]
    for name in FIELDS[kind]:
        out.append({k: v for k, v in base.items() if k != name})
        out.extend({**base, name: value} for value in pool)
    rng = random.Random(26)
    for _ in range(600):  # several fields wrong or odd at once
        values = dict(base)
        for name in rng.sample(list(FIELDS[kind]), rng.randint(1, min(3, len(FIELDS[kind])))):
            values[name] = rng.choice(pool)
        out.append(values)
    return out


@pytest.mark.parametrize("kind", list(Kind))
def test_never_valid_where_the_model_refuses(kind: Kind) -> None:
    said_valid = 0
    for values in _variants(kind):
        if plainly_valid(kind, values):
            said_valid += 1
            assert _model_takes(kind, values), values
    assert said_valid > 1


@pytest.mark.parametrize("kind", list(Kind))
def test_ordinary_valid_records_are_plainly_valid(kind: Kind) -> None:
    base = VALID[kind]
    assert plainly_valid(kind, base)
    for name, values in ALSO_VALID.items():
        if name == "created_at":  # timestamps: every dated field
            names = [n for n in ("created_at", "updated_at") if n in FIELDS[kind]]
        else:
            names = [name] if name in FIELDS[kind] else []
        for field, value in itertools.product(names, values):
            assert _model_takes(kind, {**base, field: value}), (field, value)
            assert plainly_valid(kind, {**base, field: value}), (field, value)


@pytest.mark.parametrize("kind", [Kind.DECISION, Kind.KNOWLEDGE, Kind.SUMMARY])
def test_a_record_parses_the_same_either_way(kind: Kind, monkeypatch: pytest.MonkeyPatch) -> None:
    front = "\n".join(f"{k}: {v}" for k, v in {**VALID[kind], "sources": "[{session_id: s1, range: [0, 3]}]",
                                                   "last_sources": "[]"}.items()
                      if k in FIELDS[kind] and k not in ("requires",))
    data = f"---\n{front}\nextra_key: 1\n---\nBody.\n".encode()
    path = f"x/{kind.value}.md"
    quick = parse_record(path, data, kind, "x")
    assert quick.valid and quick._model is None  # validated without the model
    monkeypatch.setattr("memcli.records.parse.plainly_valid", lambda kind, values: False)
    slow = parse_record(path, data, kind, "x")
    assert slow.valid and slow._model is not None
    assert quick == slow and quick.issues == slow.issues and quick.issues  # (the unknown key)
    assert quick.model == slow.model  # built on first use
