"""yaml-feature (E22): anchors, aliases, explicit tags, merge keys and deep nesting are refused
at their own line, instead of being read; everything plain (CJK, `*` and `!` in text) still reads."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from lint.kit import make_workspace, path_of, record

from memcli.cli import main
from memcli.plainyaml import MAX_DEPTH, _plain, _scan

P = path_of("decision", "a")

# Every kit record has its fields on lines 2-8 (sources take lines 5-7): an extra field is line 8.
CASES = {
    "anchor": ("base: &b {x: 1}", {("yaml-feature", 8)}),
    "alias-after-plain-anchor-line": ("tags: [a]\nother: &o [b]\ncopy: *o", {("yaml-feature", 9)}),
    "merge-key": ("base:\n  <<: {x: 1}", {("yaml-feature", 9)}),
    "explicit-tag": ("when: !!timestamp 2026-04-27", {("yaml-feature", 8)}),
    "local-tag": ("tags: !custom [a]", {("yaml-feature", 8)}),
    "deep-flow": ("deep: " + "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1), {("yaml-feature", 8)}),
    "deep-compact": ("deep:\n  " + "- " * (MAX_DEPTH + 1) + "x", {("yaml-feature", 9)}),
}
PLAIN = {
    "cjk-and-marks-in-text": 'title: "認証方式 *強調* & more!"',
    "quoted-merge-text": "note: '<<'",
    "question-in-plain-text": "note: why? because",
    "nesting-within-bounds": "deep: " + "[" * 50 + "]" * 50,
}


def _lint(root: Path, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, set]:
    with pytest.raises(SystemExit) as exit_info:
        main(["lint", "--workspace", str(root), "--format", "json", *args])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    found = {(f["code"], f["line"]) for f in json.loads(out)["findings"] if f["path"] == P}
    return exit_info.value.code, found


@pytest.mark.parametrize("case", list(CASES))
def test_refused_yaml_is_one_error_at_its_line(case: str, tmp_path: Path, capsys) -> None:
    extra, want = CASES[case]
    text = record("decision").replace("\n---\n", f"\n{extra}\n---\n", 1)
    root = make_workspace(tmp_path / "ws", {P: text})
    code, found = _lint(root, capsys)
    assert (code, found) == (1, want)  # no parse (E01) beside it: it is one finding, not two
    code_again, found_again = _lint(root, capsys)  # from the cache, the same
    assert (code_again, found_again) == (1, want)


@pytest.mark.parametrize("case", list(PLAIN))
def test_plain_yaml_is_not_refused(case: str, tmp_path: Path, capsys) -> None:
    text = record("decision").replace("\n---\n", f"\n{PLAIN[case]}\n---\n", 1)
    root = make_workspace(tmp_path / "ws", {P: text})
    _, found = _lint(root, capsys)
    assert not any(c == "yaml-feature" for c, _ in found), found


def test_the_deepest_plain_looking_nesting_is_within_bounds_when_scanned() -> None:
    # What passes without a scan (23 columns of indentation, compact `- k:` items, 32 brackets)
    # is still under MAX_DEPTH when scanned: the fast path never passes what a scan refuses.
    lines = [" " * (2 * i) + f"- k{i}:" for i in range(11)] + [" " * 23 + "[" * 32 + "]" * 32]
    deepest = "\n".join(lines)
    assert _plain(deepest)
    assert _scan(deepest) is None
    assert _scan("a: " + "[" * 101 + "]" * 101) is not None
