"""fastyaml.read_plain reads a frontmatter without PyYAML's composer only where it gives exactly
what PyYAML gives — the same values of the same types, the same key lines — and leaves every
other frontmatter (anything that errs, is refused, or reads differently) to PyYAML."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memcli.plainyaml import refusal
from memcli.records import fastyaml
from memcli.records.parse import _walk_lines, loader_class

REPO = Path(__file__).resolve().parents[2]


def _pyyaml(front: str):
    """(value, key lines) as PyYAML composes and constructs `front`, or None where it errs, finds a
    duplicate key or is refused."""
    if refusal(front) is not None:
        return None
    loader = loader_class()(front)
    try:
        node = loader.get_single_node()
        if node is None:
            return {}, {}
        lines, duplicates = _walk_lines(node)
        return (None if duplicates else (loader.construct_document(node), lines))
    except (yaml.YAMLError, ValueError, OverflowError, TypeError):
        return None
    finally:
        loader.dispose()


def _typed(value):
    """`value` with the type of every part spelled out: True and 1, 1 and 1.0, a date and a
    datetime, naive and zoned times compare unequal."""
    if isinstance(value, dict):
        return ("dict", [(_typed(k), _typed(v)) for k, v in value.items()])
    if isinstance(value, list):
        return ("list", [_typed(v) for v in value])
    if isinstance(value, dt.datetime):
        return ("datetime", value.isoformat(), repr(value.tzinfo))
    if isinstance(value, float) and value != value:
        return ("float", "nan")
    return (type(value).__name__, value)


def _check(front: str) -> bool:
    """Whether read_plain read `front` (asserting it read it as PyYAML does)."""
    fast = fastyaml.read_plain(front)
    if fast is None:
        return False
    full = _pyyaml(front)
    assert full is not None, f"read_plain read what PyYAML refuses: {front!r}"
    assert _typed(fast[0]) == _typed(full[0]), front
    assert fast[1] == full[1], front
    return True


KEYS = ["description", "status", "a", "b_c", "kebab-key", "_x", "true", "yes", "No", "on", "null", "NULL",
        "1", "y", "x y", "<<", "日本", "k:"]
SCALARS = [
    "plain text", "open", "yes", "No", "off", "TRUE", "~", "null", "Null", "", "0", "7", "012", "0x1F",
    "0o17", "0b101", "1_000", "1:30", "-5", "+5", "1.5", "1e5", "6.8523015e+5", ".inf", "-.inf", ".NaN",
    "2026-04-01", "2026-02-30", "2026-04-01T10:00:00+09:00", "2026-04-01 10:00:00",
    "2026-04-01T25:00:00Z", "2026-04-01t10:00:00z", "a: b", "a:b", "a:", "a #c", "C#", "#c", "'q'",
    "'it''s'", '"d"', '"a\\nb"', '"a #b"', '"x" y', "[0, 4]", "[a, b,]", "[]", "[ ]",
    "[yes, ~, 1.5, 0x10]", "[a b]", "[-1]", "{}", "{a: 1}", "&x v", "*x", "!!str 5", "|", ">", "@x",
    "`x`", "%x", "-", "- x", "?", "? x", "=", "<<", "日本語の説明", 'ab\u2028cd', 'x\x85y', 'a\x7fb',
    '\ufeffx', "trailing  ", "don't", "use [x], {y}", 'a\\b', "...", "---", "café", "𝔘nicode", "a  b",
    ":x", 'a\u3000b', 'a\xa0b', '\xa0x', "x\r", "ｆｕｌｌ", "no way", "2026 plans", "0.5.1", "1,000",
]
BENIGN = ["plain text", "open", "2026-04-01T10:00:00+09:00", "[0, 4]", "true", "7", "s2880", "'q'", "説明"]
INDENTS = ["", " ", "  ", "    "]


CLEAN_KEYS = ["description", "status", "a", "b_c", "kebab-key", "_x", "Yes_no"]


@st.composite
def frontmatter(draw) -> str:
    """Frontmatter near what records hold: mostly well-formed (so most of it is read, and every
    tricky scalar is checked there), else with odd keys, separators and lines mixed in."""
    clean = draw(st.booleans())
    keys = CLEAN_KEYS if clean else KEYS

    def value() -> str:  # in clean frontmatter, one value in four is a tricky one
        return draw(st.sampled_from(SCALARS if not clean or draw(st.integers(0, 3)) == 0 else BENIGN))

    lines = []
    for n in range(draw(st.integers(0, 5))):
        key = draw(st.sampled_from(keys)) + (str(n) if clean else "")  # clean: no duplicate keys
        sep = ": " if clean else draw(st.sampled_from([": ", ":  ", ":", " : ", ":\t"]))
        shape = draw(st.sampled_from(["scalar", "scalar", "list", "items", "mapping", "empty"]
                                     + ([] if clean else ["garbage"])))
        if shape == "scalar":
            lines.append(f"{key}{sep}{value()}")
            continue
        lines.append(f"{key}:")
        indent = draw(st.sampled_from(INDENTS))
        for _ in range(draw(st.integers(0, 3))):
            if shape == "list":
                lines.append(f"{indent}- {value()}")
            elif shape == "items":
                pad = draw(st.sampled_from(["", " ", "  "]))
                inner = indent + "  " + pad + ("" if clean else draw(st.sampled_from(["", "", " ", "-"])))
                lines.append(f"{indent}- {pad}{draw(st.sampled_from(keys))}: {value()}")
                for m in range(draw(st.integers(0, 2))):
                    lines.append(f"{inner}{draw(st.sampled_from(keys))}{m if clean else ''}: {value()}")
            elif shape == "mapping":
                lines.append(f"{indent or ' '}{draw(st.sampled_from(keys))}: {value()}")
            elif shape == "garbage":
                lines.append(draw(st.sampled_from(["", "  ", "# note", "  continued", "...", "- x", "\t- x",
                                                   "  a: 1", "   b", "key: value # comment"])))
        if draw(st.booleans()):
            lines.append("")
    return "\n".join(lines)


@settings(max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(frontmatter())
def test_what_read_plain_reads_is_what_pyyaml_reads(front: str) -> None:
    _check(front)


@pytest.mark.parametrize("front", [
    "created_at: 2026-04-01T10:00:00+09:00\nupdated_at: 2026-04-25T10:00:00+09:00\nstatus: open\n"
    "sources:\n  - session_id: s2880\n    range: [0, 4]",
    "kind: fact\ndescription: 設定の検索 notification.\nmodel_invocation: true\nlast_sources: []\n"
    "requires: []",
    "description: \"Quoted: with colon\"\ntitle: 'single'\nreplaced_by:\nsources:\n- session_id: a\n"
    "  range: [3, 18]",
    "anchors:\n  - path: memcli/cli.py\n    symbol: main\nstatus: replaced\nreplaced_by: other-slug",
    "nested:\n  a: 1\n  b: two\n\nafter: 2026-04-01",
    "",
])
def test_the_shapes_records_are_written_in_are_read_without_pyyaml(front: str) -> None:
    assert _check(front)


@pytest.mark.parametrize("front", [
    "a: 1\na: 2",  # a duplicate key: PyYAML's path reports it
    "a: b: c",  # an error: PyYAML's message
    "a: 2026-02-30",  # an impossible date: PyYAML's message
    "a: &x 1\nb: *x",  # refused (plainyaml)
    "a: x # note",  # a comment
    "a: >\n  folded",
    "a: first\n  second",  # a plain scalar on two lines
    "true: 1",  # a key that is not text
    "a:\n  - - x",  # deeper nesting
    "a: \"esc\\n\"",
])
def test_what_it_does_not_read_goes_to_pyyaml(front: str) -> None:
    assert fastyaml.read_plain(front) is None


def test_every_record_of_the_repository_reads_the_same_both_ways() -> None:
    fronts = []
    for path in sorted(REPO.glob("**/*.md")):
        if "node_modules" in path.parts or ".git" in path.parts:
            continue
        text = path.read_text(encoding="utf-8", errors="replace").replace("\r\n", "\n")
        if text.startswith("---\n") and "\n---" in text[4:]:
            fronts.append(text[4:text.index("\n---", 3)])
    read = sum(_check(front) for front in fronts)
    assert fronts and read >= len(fronts) // 2, (read, len(fronts))
