"""What the store keeps of a record's YAML gives back the very record a fresh parse gives."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from memcli.records.parse import parse_record
from memcli.store import codec
from memcli.workspace import locate

FRONTS = [
    "a: 2026-04-01T10:00:00Z\nb: 2026-04-01 10:00:00.5+09:30\nc: 2026-04-01\nd: 2026-04-01T10:00:00\n",
    "e: !!binary aGVsbG8=\nf: 1e3\ng: .nan\nh: -.inf\ni: 0o17\nj: ~\nk: [1, 2.5, true, null, 'x']\n",
    "l: {m: {n: [2026-04-01, {o: 3}]}}\n12: twelve\ntrue: yes\n3.5: x\n~: none\n",
    "p: &a [1, 2]\nq: *a\nr: 99999999999999999999999999\ns: '\\ud800'\n",
    "kind: fact\nkind: rule\n",  # a duplicate key: an error with key lines
    "t: [unclosed\n",  # a YAML error
    "- a\n- b\n",  # a list, not a mapping
    "just text\n",  # a scalar
    "",  # empty
]


@pytest.mark.parametrize("front", FRONTS)
def test_round_trip_of_what_yaml_gave(front: str) -> None:
    data = f"---\n{front}---\nbody\n".encode()
    rec = parse_record("knowledge/x.md", data, None, "x")
    assert rec.loaded is not None
    blob = codec.encode(rec.loaded)
    assert blob is not None
    # repr: same types (1 is not True, nor 1.0), same zones, same text in messages; nan == nan
    assert repr(codec.decode(blob)) == repr(rec.loaded)


@pytest.mark.parametrize("front", ["a: !!omap [b: 1]\n", "a: !!set {b, c}\n", "a: !!pairs [b: 1]\n"])
def test_values_it_cannot_keep_are_refused(front: str) -> None:
    import yaml  # records refuse tags before the codec (plainyaml); the codec refuses them itself

    assert codec.encode((yaml.safe_load(front), {}, None, None)) is None


def test_a_shared_container_is_not_kept_as_its_expansion() -> None:
    shared = ["x"] * 9
    assert codec.encode(({"a": shared, "b": [shared, shared]}, {}, None, None)) is None


def test_a_timestamp_keeps_its_zone_exactly() -> None:
    zones = [None, dt.UTC, dt.timezone(dt.timedelta(hours=9, minutes=30)),
             dt.timezone(-dt.timedelta(hours=5))]
    for zone in zones:
        value = dt.datetime(2026, 4, 1, 10, 0, 0, 123456, tzinfo=zone)
        back = codec.decode(codec.encode(({"t": value}, {}, None, None)))[0]
        assert back["t"] == value and repr(back["t"]) == repr(value)


def _records(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*.md")
                  if locate(p.relative_to(root).as_posix()).kind is not None)


@pytest.mark.parametrize("which", ["example", "generated"])
def test_every_record_rebuilt_equals_a_fresh_parse(which: str, request: pytest.FixtureRequest) -> None:
    root: Path = request.getfixturevalue(which)
    for rel in _records(root):
        full = root / rel
        if full.is_dir():
            continue
        data = full.read_bytes()
        loc = locate(rel)
        for validate in (True, False):
            fresh = parse_record(rel, data, loc.kind, loc.slug, validate=validate)
            if fresh.loaded is None or (blob := codec.encode(fresh.loaded)) is None:
                continue
            kept = codec.decode(blob)
            rebuilt = parse_record(rel, data, loc.kind, loc.slug, validate=validate, loaded=kept)
            assert rebuilt == fresh, rel
            assert rebuilt.key_lines == fresh.key_lines and rebuilt.issues == fresh.issues
