"""Bad input gets a finding, never a traceback (issue 2): every case through the real CLI.

Each case is one workspace holding the bad file(s), a clean record and a sentinel record with a
known error: the bad file gets its precise (code, line), the sentinel is still reported (a broken
file never stops the run), and the exit code is 1 for wrong content, 0 where the input is only
unusual (BOM, CRLF) — never 2 or 3.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from lint.kit import make_workspace, path_of, record

from memcli.cli import main

D = "memory/decisions"
GOOD = record("decision")
SENTINEL = (path_of("request", "sentinel"), record("request", sources=None))
SENTINEL_FINDING = {("missing-field", 1)}
SYMLINK_OUT = object()
DIRECTORY = object()


def _replaced(target: str) -> str:
    return record("decision", status="replaced", replaced_by=target)


def _huge() -> bytes:
    line = b"All work and no play makes a dull record. " * 2 + b"\n"
    return record("decision").encode() + line * (50 * 1024 * 1024 // len(line) + 1)


# case id → (files: path → content, expected: path → {(code, line)}, exit code)
CASES: dict[str, tuple[dict, dict, int]] = {
    "empty-file": ({f"{D}/a.md": b""}, {f"{D}/a.md": {("parse", 1)}}, 1),
    "no-frontmatter": ({f"{D}/a.md": "# Title\ntext\n"}, {f"{D}/a.md": {("parse", 1)}}, 1),
    "unterminated-frontmatter": (
        {f"{D}/a.md": "---\nstatus: open\nbody\n"},
        {f"{D}/a.md": {("parse", 1)}},
        1,
    ),
    "yaml-syntax-error": (
        {f"{D}/a.md": "---\nstatus: open\nsources: [1, 2\ncreated_at: x\n---\n"},
        {f"{D}/a.md": {("parse", 3)}},  # the line where the bracket opened
        1,
    ),
    "impossible-timestamp": (
        {f"{D}/a.md": "---\nstatus: open\ncreated_at: 2026-02-30T10:00:00+09:00\n---\n"},
        {f"{D}/a.md": {("parse", 3)}},
        1,
    ),
    "impossible-hour-in-a-list": (
        {f"{D}/a.md": "---\nstatus: open\nsources:\n  - at: 2026-04-27T24:00:00Z\n---\n"},
        {f"{D}/a.md": {("parse", 4)}},
        1,
    ),
    "yaml-list": ({f"{D}/a.md": "---\n- status\n- open\n---\n"}, {f"{D}/a.md": {("parse", 2)}}, 1),
    "yaml-scalar": ({f"{D}/a.md": "---\njust words\n---\n"}, {f"{D}/a.md": {("parse", 2)}}, 1),
    "tabs": (
        {f"{D}/a.md": "---\nstatus: open\nsources:\n\t- session_id: x\n---\n"},
        {f"{D}/a.md": {("parse", 4)}},
        1,
    ),
    "bom": ({f"{D}/a.md": b"\xef\xbb\xbf" + GOOD.encode()}, {f"{D}/a.md": set()}, 0),
    "crlf": ({f"{D}/a.md": GOOD.replace("\n", "\r\n").encode()}, {f"{D}/a.md": set()}, 0),
    "non-utf8": ({f"{D}/a.md": GOOD.encode() + b"caf\xe9\n"}, {f"{D}/a.md": {("parse", 10)}}, 1),
    "binary": ({f"{D}/a.md": bytes(range(256)) * 4}, {f"{D}/a.md": {("parse", None)}}, 1),
    "50-mb-file": ({f"{D}/a.md": _huge}, {f"{D}/a.md": {("too-large", None)}}, 1),  # not read: one finding
    "symlink-outside-workspace": ({f"{D}/a.md": SYMLINK_OUT}, {f"{D}/a.md": {("parse", None)}}, 1),
    "directory-named-x.md": ({f"{D}/x.md": DIRECTORY}, {f"{D}/x.md": {("parse", None)}}, 1),
    "duplicate-keys": (
        {f"{D}/a.md": GOOD.replace("status: open", "status: open\nstatus: resolved")},
        {f"{D}/a.md": {("parse", 5)}},
        1,
    ),
    "naive-timestamps": (
        {f"{D}/a.md": record("decision", created_at="2026-04-27 10:00:00", updated_at="2026-04-27T10:00:00")},
        {f"{D}/a.md": {("invalid-field", 2), ("invalid-field", 3)}},
        1,
    ),
    "range-5-2": ({f"{D}/a.md": GOOD.replace("[3, 18]", "[5, 2]")}, {f"{D}/a.md": {("invalid-field", 5)}}, 1),
    "negative-range": (
        {f"{D}/a.md": GOOD.replace("[3, 18]", "[-3, 18]")},
        {f"{D}/a.md": {("invalid-field", 5)}},
        1,
    ),
    "status-Replaced": (
        {f"{D}/a.md": record("decision", status="Replaced", replaced_by="b"), f"{D}/b.md": GOOD},
        {f"{D}/a.md": {("invalid-status", 4)}, f"{D}/b.md": set()},
        1,
    ),
    "replaced-by-itself": (
        {f"{D}/self-ref.md": _replaced("self-ref")},
        {f"{D}/self-ref.md": {("replaced-by-cycle", 8)}},
        1,
    ),
    "three-cycle": (
        {
            f"{D}/use-sqlite.md": _replaced("use-postgres"),
            f"{D}/use-postgres.md": _replaced("use-dynamodb"),
            f"{D}/use-dynamodb.md": _replaced("use-sqlite"),
        },
        {f"{D}/{s}.md": {("replaced-by-cycle", 8)} for s in ("use-sqlite", "use-postgres", "use-dynamodb")},
        1,
    ),
    "model-invocation-both-spellings": (
        {"knowledge/k.md": record("knowledge", model_invokation="true")},
        {"knowledge/k.md": {("invalid-field", 11)}},
        1,
    ),
    **{
        f"slug-{name}": ({f"{D}/{slug}.md": GOOD}, {f"{D}/{slug}.md": {("invalid-slug", None)}}, 1)
        for name, slug in (
            ("-a", "-a"),
            ("a-", "a-"),
            ("a--b", "a--b"),
            ("A", "A"),
            ("65-chars", "a" * 65),
            ("u-umlaut", "ü"),
        )
    },
}


def _unique(case: str, rel: str) -> str:
    """`memory/decisions/a.md` of each case gets the case's own name, so cases can share a workspace."""
    return f"{D}/{case.replace('.', '-').lower()}.md" if rel == f"{D}/a.md" else rel


CASES = {
    case: (
        {_unique(case, r): c for r, c in files.items()},
        {_unique(case, r): w for r, w in want.items()},
        code,
    )
    for case, (files, want, code) in CASES.items()
}


def _build(root: Path, files: dict, tmp_path: Path) -> None:
    plain = {}
    for rel, content in files.items():
        if content is SYMLINK_OUT or content is DIRECTORY:
            continue
        plain[rel] = content() if callable(content) else content
    make_workspace(root, {**plain, path_of("decision", "clean-one"): GOOD, SENTINEL[0]: SENTINEL[1]})
    for rel, content in files.items():
        if content is SYMLINK_OUT:
            outside = tmp_path / "outside.md"
            outside.write_text(GOOD, encoding="utf-8")
            os.symlink(outside, root / rel)
        elif content is DIRECTORY:
            (root / rel).mkdir()
            (root / rel / "inner.md").write_text(GOOD, encoding="utf-8")


def _lint_json(root: Path, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict]:
    with pytest.raises(SystemExit) as exit_info:
        main(["lint", "--workspace", str(root), "--format", "json", *args])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return exit_info.value.code, json.loads(out)


@pytest.mark.parametrize("case", list(CASES))
def test_bad_input_gets_a_precise_finding(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files, expected, exit_code = CASES[case]
    root = tmp_path / "ws"
    _build(root, files, tmp_path)
    code, report = _lint_json(root, capsys)
    by_path: dict[str, set] = {}
    for f in report["findings"]:
        by_path.setdefault(f["path"], set()).add((f["code"], f["line"]))
    for path, want in expected.items():
        assert by_path.get(path, set()) == want, path
    # Every other file was still linted: the sentinel's error is there, the clean record is clean.
    assert by_path.get(SENTINEL[0]) == SENTINEL_FINDING
    assert path_of("decision", "clean-one") not in by_path
    assert set(by_path) <= {*expected, SENTINEL[0]}
    # The sentinel alone makes the run fail; without it the verdict is the case's own.
    assert code == 1
    os.unlink(root / SENTINEL[0])
    own_code, _ = _lint_json(root, capsys)
    assert own_code == exit_code


def test_all_bad_inputs_in_one_workspace_through_a_real_process(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    merged: dict = {}
    for case, (files, _, _) in CASES.items():
        if case == "50-mb-file":
            continue  # covered above; keeps this process quick
        assert not set(files) & set(merged), case
        merged.update(files)
    _build(root, merged, tmp_path)
    proc = subprocess.run(
        [sys.executable, "-m", "memcli", "lint", "--workspace", str(root)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr == ""
    bad = {
        rel
        for case, (files, want, code) in CASES.items()
        if case != "50-mb-file" and code == 1
        for rel in want
        if want[rel]
    }
    for rel in bad | {SENTINEL[0]}:
        assert f"{rel}:" in proc.stdout, rel
    assert "memory/decisions/clean-one.md" not in proc.stdout
    total = proc.stdout.rstrip().splitlines()[-1]  # the one-line total
    assert total.startswith(f"{len(merged) + 2} files checked: ") and " errors, " in total
