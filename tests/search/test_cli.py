"""`memcli search` end to end through the CLI entry point."""

from __future__ import annotations

import json

import pytest
from support.cli import run


def run_cli(capsys, *args: str) -> tuple[int, str, str]:
    return run(capsys, "search", *args)


@pytest.fixture
def ws(records):
    records.knowledge("sqlite-backup", "How to back up the SQLite database", "Use the online backup API.",
                      kind="howto")
    records.decision("use-sqlite", "Keep the data in SQLite.")
    records.decision("use-files", "Store data in JSON files.", status="replaced", replaced_by="use-sqlite")
    records.request("japanese-commits", "コミットメッセージは日本語でもよい。")
    return records.root


def test_json_output_fields(capsys, ws):
    code, out, _ = run_cli(capsys, "sqlite backup", "--json", "-w", str(ws))
    assert code == 0
    hits = json.loads(out)
    assert [h["slug"] for h in hits] == ["sqlite-backup", "use-sqlite"]
    first = hits[0]
    assert set(first) >= {"slug", "path", "type", "score", "description", "snippet"}
    assert first["path"] == "knowledge/sqlite-backup.md" and first["type"] == "knowledge"
    assert first["kind"] == "howto" and first["model_invocation"] is True
    assert "«backup»" in first["snippet"]
    assert hits[0]["score"] >= hits[1]["score"]


def test_json_japanese_is_not_escaped(capsys, ws):
    code, out, _ = run_cli(capsys, "日本", "--json", "-w", str(ws))
    assert code == 0 and "«日本»語" in out
    assert [h["slug"] for h in json.loads(out)] == ["japanese-commits"]


def test_filters_and_replaced(capsys, ws):
    _, out, _ = run_cli(capsys, "data", "--json", "-w", str(ws), "--type", "decision")
    hits = json.loads(out)
    assert [h["slug"] for h in hits] == ["use-sqlite", "use-files"]  # the replaced one below, marked
    assert hits[1]["replaced_by"] == "use-sqlite" and hits[1]["status"] == "replaced"
    _, out, _ = run_cli(capsys, "keep sqlite json", "--json", "-w", str(ws), "-t", "decision")
    assert [h["slug"] for h in json.loads(out)] == ["use-sqlite"]  # use-files holds 1 word of 3
    _, out, _ = run_cli(capsys, "keep sqlite json", "--json", "-w", str(ws), "--include-replaced",
                        "-t", "decision")
    assert [h["slug"] for h in json.loads(out)] == ["use-sqlite", "use-files"]
    _, out, _ = run_cli(capsys, "sqlite", "--json", "-w", str(ws), "--kind", "howto", "--limit", "1")
    assert [h["slug"] for h in json.loads(out)] == ["sqlite-backup"]


def test_table_for_people(capsys, ws):
    code, out, _ = run_cli(capsys, "sqlite", "-w", str(ws))
    assert code == 0
    assert "sqlite-backup" in out and "use-sqlite" in out and "«" not in out
    _, out, _ = run_cli(capsys, "data", "-w", str(ws))
    assert "replaced" in out and "→ use-sqlite" in out


def test_no_hits_is_not_an_error(capsys, ws):
    code, out, _ = run_cli(capsys, "zebra", "-w", str(ws))
    assert code == 0 and "No matching records" in out
    code, out, _ = run_cli(capsys, "zebra", "--json", "-w", str(ws))
    assert code == 0 and json.loads(out) == []


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("",), "empty query"),
        (("?!*",), "no letters or digits"),
        (("x", "--type", "note"), "--type 'note'"),
        (("x", "--kind", "recipe"), "--kind 'recipe'"),
        (("x", "--status", "closed"), "--status 'closed'"),
        (("x", "--limit", "0"), "--limit"),
    ],
)
def test_bad_arguments_are_one_line_errors(capsys, ws, args, needle):
    code, out, err = run_cli(capsys, *args, "-w", str(ws))
    assert code == 2
    assert err.startswith("Error: ") and needle in err and err.count("\n") == 1
    assert "Traceback" not in err + out


def test_broken_records_are_counted_under_the_table(capsys, ws, records):
    records.write("memory/requests/broken.md", "no frontmatter but about sqlite")
    code, out, _ = run_cli(capsys, "sqlite", "-w", str(ws))
    assert code == 0 and "broken" in out
    assert "1 file(s) in the index are not valid records" in out
    _, out, _ = run_cli(capsys, "sqlite", "--json", "-w", str(ws))
    broken = [h for h in json.loads(out) if h["slug"] == "broken"]
    assert broken and "frontmatter" in broken[0]["parse_error"]
