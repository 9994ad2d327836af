"""memory_write: linted before written, all violations at once, nothing on disk after a refusal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tools.helpers import RUN_SRC, record, tree, unfence

from memcli.tools import ToolSession


def test_create_writes_the_exact_bytes_and_journals_it(session: ToolSession) -> None:
    text = record("decision", "Adopt ruff for linting.\n")
    out = session.write("memory/decisions/adopt-ruff.md", text, "create", "new decision from staging")
    assert out.ok, out
    assert (session.workspace.root / "memory/decisions/adopt-ruff.md").read_bytes() == text.encode()
    [entry] = session.journal
    assert (entry.op, entry.path, entry.size_before, entry.size_after) == (
        "create",
        "memory/decisions/adopt-ruff.md",
        None,
        len(text),
    )
    assert entry.reason == "new decision from staging"


def test_japanese_content_round_trips_byte_for_byte(session: ToolSession) -> None:
    body = "SQLite は WAL モードで使う。\n理由: 読み取りが書き込み中も止まらない。🚀\r\n末尾の空白  \n"
    text = record("request", body)
    out = json.loads(
        session.dispatch(
            "memory_write",
            json.dumps(
                {
                    "path": "memory/requests/nihongo.md",
                    "content": text,
                    "mode": "create",
                    "reason": "日本語の依頼",
                }
            ),
        )
    )
    assert out["ok"], out
    path = session.workspace.root / "memory/requests/nihongo.md"
    assert path.read_bytes() == text.encode("utf-8")
    read = json.loads(session.dispatch("memory_read", {"path": "memory/requests/nihongo.md"}))
    assert unfence(read["content"])[1] == text
    assert session.journal[0].reason == "日本語の依頼"
    assert session.journal[0].size_after == len(text)  # characters, not bytes


def test_results_carry_japanese_as_text_not_escapes(session: ToolSession) -> None:
    session.write("memory/requests/nihongo.md", record("request", "コミットは日本語で。\n"), "create", "理由")
    raw = session.dispatch("memory_read", {"path": "memory/requests/nihongo.md"})
    assert "コミットは日本語で。" in raw


def test_create_of_an_existing_slug_is_refused(session: ToolSession) -> None:
    before = tree(session.workspace.root)
    out = session.write("memory/decisions/use-sqlite-wal.md", record(), "create", "r")
    assert out.error == "refused"
    assert [v.code for v in out.violations] == ["slug-exists"]
    assert "edit" in out.violations[0].message
    assert tree(session.workspace.root) == before


def test_replace_of_a_missing_file_is_refused(session: ToolSession) -> None:
    out = session.write("memory/decisions/nothing-here.md", record(), "replace", "r")
    assert out.error == "not-found" and "mode=create" in out.message


def test_replace_keeps_existing_sources_and_accepts_given_ones(session: ToolSession) -> None:
    path = "memory/requests/keep-e2e-opt-in.md"
    from tools.helpers import E2E_SRC

    out = session.write(path, record("request", "Keep e2e opt-in.\n", [E2E_SRC, RUN_SRC]), "replace", "merge")
    assert out.ok, out
    assert session.journal[-1].op == "replace"


@pytest.mark.parametrize(
    ("name", "args"),
    [
        (
            "memory_write",
            {"path": "memory/workflow/release.md", "content": "x", "mode": "replace", "reason": "r"},
        ),
        (
            "memory_write",
            {"path": "memory/workflow/new-flow.md", "content": "x", "mode": "create", "reason": "r"},
        ),
        (
            "memory_edit",
            {"path": "memory/workflow/release.md", "old_string": "Tag", "new_string": "Tag!", "reason": "r"},
        ),
        ("memory_delete", {"path": "memory/workflow/release.md", "reason": "r"}),
    ],
    ids=["replace", "create", "edit", "delete"],
)
def test_workflow_is_read_only(session: ToolSession, name: str, args: dict) -> None:
    before = tree(session.workspace.root)
    out = session.call(name, args)
    assert out.error == "refused", out
    assert "workflow-readonly" in [v.code for v in out.violations]
    assert tree(session.workspace.root) == before
    assert session.read("memory/workflow/release.md").ok  # reading stays allowed


def test_five_violations_come_back_in_one_result(session: ToolSession) -> None:
    text = (
        "---\n"
        "created_at: yesterday\n"  # invalid-field
        "updated_at: 2026-06-01T10:00:00+09:00\n"
        "status: maybe\n"  # invalid-status
        "replaced_by: ghost\n"  # replaced-by-inconsistent + dangling-reference
        "sources:\n  - session_id: invented\n    range: [0, 1]\n"  # source-not-provided
        "---\n"
        + "x" * 8_100  # too-large
        + "\n"
    )
    before = tree(session.workspace.root)
    out = json.loads(
        session.dispatch(
            "memory_write",
            {"path": "memory/decisions/Bad_Slug.md", "content": text, "mode": "create", "reason": ""},
        )
    )
    codes = sorted(v["code"] for v in out["violations"])
    expected = ["invalid-field", "invalid-status", "dangling-reference", "source-not-provided", "too-large"]
    assert codes == sorted([*expected, "invalid-slug", "reason-required"])
    assert all(v["path"] == "memory/decisions/Bad_Slug.md" for v in out["violations"])
    assert out["ok"] is False and out["error"] == "refused"
    assert str(len(out["violations"])) in out["message"] and "nothing was written" in out["message"]
    for v in out["violations"]:
        assert v["severity"] == "error" and v["message"]
    by_code = {v["code"]: v for v in out["violations"]}
    assert by_code["invalid-status"]["line"] == 4 and by_code["invalid-status"]["field"] == "status"
    assert by_code["source-not-provided"]["field"] == "sources"
    assert tree(session.workspace.root) == before
    assert session.journal == ()


def test_warnings_come_back_without_blocking(session: ToolSession) -> None:
    text = record("decision", "long " * 400 + "\n")  # low-value-large: > 1500 chars, one Source
    out = session.write("memory/decisions/padded.md", text, "create", "r")
    assert out.ok, out
    assert [w.code for w in out.warnings] == ["low-value-large"]
    assert json.loads(out.to_json())["warnings"][0]["severity"] == "warning"


def test_secret_in_content_is_refused(session: ToolSession) -> None:
    text = record("request", "Deploy with key AKIAIOSFODNN7EXAMPLE and token ghp_" + "a" * 36 + "\n")
    out = session.write("memory/requests/deploy-key.md", text, "create", "r")
    assert out.error == "refused"
    assert "secret" in {v.code for v in out.violations}
    assert not (session.workspace.root / "memory/requests/deploy-key.md").exists()


def test_unpaired_surrogate_is_an_argument_error(session: ToolSession) -> None:
    raw = '{"path": "memory/requests/x.md", "content": "bad \\ud800 text", "mode": "create", "reason": "r"}'
    out = json.loads(session.dispatch("memory_write", raw))
    assert out["error"] == "arguments" and "surrogate" in out["message"]


def test_write_creates_missing_record_folder(tmp_path: Path) -> None:
    from memcli.workspace import Workspace

    root = tmp_path / "fresh"
    (root / "memory").mkdir(parents=True)
    session = ToolSession(Workspace.open(root), allowed_sources=[RUN_SRC], knowledge_sources=None)
    out = session.write("memory/requests/first.md", record("request"), "create", "r")
    assert out.ok, out
    assert (root / "memory/requests/first.md").is_file()


def test_a_folder_where_a_record_should_be_is_refused(session: ToolSession) -> None:
    (session.workspace.root / "memory/decisions/odd.md").mkdir()
    before = tree(session.workspace.root)
    for out in (
        session.write("memory/decisions/odd.md", record(), "create", "r"),
        session.write("memory/decisions/odd.md", record(), "replace", "r"),
        session.delete("memory/decisions/odd.md", "r"),
    ):
        assert out.error == "path" and "folder" in out.message
    assert tree(session.workspace.root) == before
