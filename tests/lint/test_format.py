"""`memcli lint` output formats, `--format auto`, `--strict`: through the real CLI entry point."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from lint.kit import make_workspace, path_of, record

from memcli.cli import main
from memcli.lint import Finding, Severity
from memcli.lint.format import render_github
from memcli.lint.registry import RULES

BAD = "memory/decisions/bad-status.md"
WARN = "memory/decisions/extra-field.md"


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    return make_workspace(
        tmp_path / "ws",
        {
            BAD: record("decision", status="Done"),  # invalid-status on line 4
            WARN: record("decision", tags="[db]"),  # unknown-field warning on line 8
            path_of("decision", "fine-one"): record("decision"),
        },
    )


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(["lint", *args])
    out, err = capsys.readouterr()
    return exit_info.value.code, out, err


def test_text_is_grouped_per_file_with_lines_and_a_total(ws: Path, capsys) -> None:
    code, out, err = _run(capsys, "-w", str(ws), "--format", "text")
    assert code == 1 and err == ""
    lines = out.splitlines()
    assert lines == [
        BAD,
        f"  {BAD}:4: error invalid-status " + lines[1].split("invalid-status ", 1)[1],
        WARN,
        f"  {WARN}:8: warning unknown-field " + lines[3].split("unknown-field ", 1)[1],
        "3 files checked: 1 error, 1 warning",
    ]


def test_text_without_problems(ws: Path, capsys) -> None:
    code, out, _ = _run(capsys, "-w", str(ws), "--format", "text", str(ws / "memory/decisions/fine-one.md"))
    assert code == 0
    assert out.splitlines() == ["1 file checked: no problems"]


def test_json_has_stable_fields(ws: Path, capsys) -> None:
    code, out, _ = _run(capsys, "-w", str(ws), "--format", "json")
    data = json.loads(out)
    assert code == 1
    assert set(data) == {"files", "errors", "warnings", "findings"}
    assert (data["files"], data["errors"], data["warnings"]) == (3, 1, 1)
    first = data["findings"][0]
    assert set(first) == {"path", "line", "code", "severity", "message", "alias", "field"}
    assert (
        first["path"],
        first["line"],
        first["code"],
        first["severity"],
        first["alias"],
        first["field"],
    ) == (
        BAD,
        4,
        "invalid-status",
        "error",
        "E05",
        "status",
    )


def test_github_annotations_with_paths_from_the_current_directory(ws: Path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(ws.parent)
    code, out, _ = _run(capsys, "-w", "ws", "--format", "github")
    lines = out.splitlines()
    assert code == 1
    assert lines[0].startswith(f"::error file=ws/{BAD},line=4,title=invalid-status::")
    assert lines[1].startswith(f"::warning file=ws/{WARN},line=8,title=unknown-field::")
    assert lines[2] == "3 files checked: 1 error, 1 warning"


def test_github_escapes_what_would_break_the_command() -> None:
    finding = Finding("memory/a,b:c.md", None, "parse", Severity.ERROR, "100% bad\nnext line")
    out = render_github([finding], 1).splitlines()[0]
    assert out == "::error file=memory/a%2Cb%3Ac.md,line=1,title=parse::100%25 bad%0Anext line"


def test_auto_is_github_under_github_actions(ws: Path, capsys, monkeypatch) -> None:
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    _, out, _ = _run(capsys, "-w", str(ws))
    assert out.startswith("::error file=")
    monkeypatch.delenv("GITHUB_ACTIONS")
    _, out, _ = _run(capsys, "-w", str(ws))
    assert out.splitlines()[0] == BAD


def test_sarif(ws: Path, capsys) -> None:
    code, out, _ = _run(capsys, "-w", str(ws), "--format", "sarif")
    doc = json.loads(out)
    assert code == 1 and doc["version"] == "2.1.0"
    run = doc["runs"][0]
    assert {r["id"] for r in run["tool"]["driver"]["rules"]} == {r.code for r in RULES}
    got = {
        (
            r["ruleId"],
            r["level"],
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            r["locations"][0]["physicalLocation"]["region"]["startLine"],
        )
        for r in run["results"]
    }
    assert got == {("invalid-status", "error", BAD, 4), ("unknown-field", "warning", WARN, 8)}


def test_strict_fails_on_warnings(tmp_path: Path, capsys) -> None:
    root = make_workspace(tmp_path / "ws", {WARN: record("decision", tags="[db]")})
    assert _run(capsys, "-w", str(root))[0] == 0
    assert _run(capsys, "-w", str(root), "--strict")[0] == 1


def test_paths_limit_file_rules_but_reference_checks_see_everything(ws: Path, capsys) -> None:
    (ws / "memory/decisions/old.md").write_text(
        record("decision", status="replaced", replaced_by="fine-one"), encoding="utf-8"
    )
    (ws / "memory/decisions/fine-one.md").unlink()  # what a rename or delete does
    (ws / "README.md").write_text("# not a record\n", encoding="utf-8")  # what pre-commit may pass
    code, out, _ = _run(capsys, "-w", str(ws), "--format", "json", str(ws / "README.md"))
    data = json.loads(out)
    assert code == 1
    assert {(f["path"], f["code"], f["line"]) for f in data["findings"]} == {
        ("memory/decisions/old.md", "dangling-reference", 8)
    }


def test_folder_argument_and_workspace_found_from_the_path(ws: Path, capsys) -> None:
    code, out, _ = _run(capsys, "--format", "json", str(ws / "memory"))
    data = json.loads(out)
    assert code == 1 and data["files"] == 3


def test_plain_output_is_rich_output_without_colour() -> None:
    import io

    from rich.console import Console

    from memcli.lint.format import render_plain, render_text

    findings = [
        Finding(
            "memory/decisions/a.md",
            4,
            "invalid-status",
            Severity.ERROR,
            "status 'Done' is not one of ... " * 5,
        ),
        Finding("memory/decisions/a.md", None, "invalid-slug", Severity.ERROR, "日本語のメッセージ"),
        Finding("knowledge/b.md", 8, "unknown-field", Severity.WARNING, "unknown field 'tags'"),
    ]
    plain, coloured = io.StringIO(), io.StringIO()
    render_plain(findings, 2, plain)
    render_text(findings, 2, Console(file=coloured, force_terminal=False, width=60, highlight=False))
    assert plain.getvalue() == coloured.getvalue()
    with_colour = io.StringIO()
    render_text(findings, 2, Console(file=with_colour, force_terminal=True, width=60, highlight=False))
    assert "\x1b[" in with_colour.getvalue()


def test_text_and_json_agree_on_a_finding_without_a_line(tmp_path: Path, capsys) -> None:
    root = make_workspace(tmp_path / "ws", {"memory/decisions/Bad_Slug.md": record("decision")})
    _, out, _ = _run(capsys, "-w", str(root), "--format", "json")
    found = [f for f in json.loads(out)["findings"] if f["path"].endswith("Bad_Slug.md")]
    assert found and all(f["line"] is None for f in found), found
    _, text, _ = _run(capsys, "-w", str(root), "--format", "text")
    assert "Bad_Slug.md: " in text and "Bad_Slug.md:1:" not in text, text
