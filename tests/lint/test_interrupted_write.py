"""A record write killed before its rename leaves its temp file, hidden beside the record: the Linter
reports it (the whole workspace, and the staged path as the pre-commit hook passes it), so `git add
-A` cannot commit half a record unnoticed; the record itself is as it was."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from lint.kit import make_workspace, path_of, record
from support.killed import killed_write

from memcli.cli import main


def _lint(root: Path, capsys: pytest.CaptureFixture[str], *paths: str) -> tuple[int, list[dict]]:
    with pytest.raises(SystemExit) as exit_info:
        main(["lint", "--workspace", str(root), "--format", "json", *paths])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return exit_info.value.code, json.loads(out)["findings"]


def test_the_temp_file_of_a_killed_record_write_is_a_finding(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rel = path_of("decision", "use-sqlite")
    old = record("decision")
    root = make_workspace(tmp_path, {rel: old})
    killed_write(root / rel, record("decision", body="new\n"))
    assert (root / rel).read_text(encoding="utf-8") == old
    [left] = [p.name for p in (root / rel).parent.iterdir() if p.name.startswith(".")]
    temp = f"{Path(rel).parent.as_posix()}/{left}"

    code, findings = _lint(root, capsys)
    assert code == 1
    assert [(f["path"], f["code"]) for f in findings] == [(temp, "unknown-location")]
    assert "interrupted write of use-sqlite.md" in findings[0]["message"]
    assert "delete it" in findings[0]["message"]
    assert _lint(root, capsys, str(root / temp))[0] == 1  # the pre-commit hook's way: the staged path

    (root / temp).unlink()
    assert _lint(root, capsys) == (0, [])
