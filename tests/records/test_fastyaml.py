"""The lean frontmatter constructor builds exactly what PyYAML's full constructor builds."""

from __future__ import annotations

import pytest
import yaml

from memcli.records import fastyaml

Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

PLAIN = [
    "a: 1\nb: 0x1F\nc: 1_000\nd: 1:20\ne: .inf\nf: ~\ng: yes\nh: Off\ni: 2026-04-27\n",
    "created_at: 2026-04-27T10:00:00+09:00\nupdated_at: '2026-04-27T10:00:00Z'\n",
    "sources:\n  - session_id: 4c2ddfdc\n    range: [3, 18]\n  - {session_id: x, range: [0, 0]}\n",
    "k: [1, 'x', {y: z}, [], {}]\nl: 'quoted: 1'\nm: |\n  block\n  text\nn: >\n  folded\n",
    "1: a\n2.5: b\nnull: c\ntrue: d\n",
    "a: &x [1, 2]\nb: *x\n",
    "説明: 日本語の値\nタグ: [設計, 運用]\n",
]
NEEDS_FULL = ["<<: {a: 1}\nb: 2\n", "? [a]\n: 1\n", "a: !!str 1\nb: !!binary aGk=\n", "a: !!set {x, y}\n"]


def _both(text: str):
    loader = Loader(text)
    node = loader.get_single_node()
    try:
        fast = fastyaml.construct(loader, node)
    except fastyaml.Unsupported:
        fast = fastyaml.Unsupported
    return fast, yaml.load(text, Loader=Loader)


@pytest.mark.parametrize("text", PLAIN)
def test_same_value_as_pyyaml(text: str) -> None:
    fast, full = _both(text)
    assert fast == full and type(fast) is type(full)


def test_aliases_share_one_object_like_pyyaml() -> None:
    fast, _ = _both("a: &x [1, 2]\nb: *x\n")
    assert fast["a"] is fast["b"]


@pytest.mark.parametrize("text", NEEDS_FULL)
def test_anything_else_falls_back(text: str) -> None:
    loader = Loader(text)
    with pytest.raises(fastyaml.Unsupported):
        fastyaml.construct(loader, loader.get_single_node())


def test_a_self_referencing_anchor_falls_back() -> None:
    loader = Loader("a: &a\n  b: *a\n")
    with pytest.raises(fastyaml.Unsupported):
        fastyaml.construct(loader, loader.get_single_node())
