"""Code anchors on a real git repository: a renamed file, a deleted one, a moved symbol, a path
outside the repository (refused by the schema), and the Linter's warning at commit time."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.cli import run
from support.git import git

from memcli.anchors import AnchorChecker
from memcli.fence import MEMORY_LABEL
from memcli.records.anchors import Anchor, anchors_of

NOW = "2026-05-20T10:00:00+00:00"


def write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def decision(anchors: str, body: str = "Jobs run in a worker.") -> str:
    return (f"---\ncreated_at: {NOW}\nupdated_at: {NOW}\nstatus: resolved\nsources:\n"
            f"  - session_id: s1\n    range: [0, 1]\nanchors:\n{anchors}---\n{body}\n")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository whose memcli workspace sits in a subfolder (anchors are repository paths)."""
    root = tmp_path / "repo"
    write(root, "src/jobs.py", "def run_pending():\n    pass\n")
    write(root, "src/api.py", "def serve():\n    pass\n")
    write(root, "src/old.py", "x = 1\n")
    write(root, "docs/deploy.md", "# Deploy\n")
    (root / "mem" / "memory" / "decisions").mkdir(parents=True)
    write(root, "mem/memory/decisions/jobs.md", decision(
        "  - path: src/jobs.py\n    symbol: run_pending\n  - src/old.py\n"
        "  - {path: src/api.py, symbol: serve}\n  - docs/deploy.md\n"))
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "code and memory")
    return root


def test_anchors_of_reads_both_forms_and_skips_malformed() -> None:
    meta = {"anchors": ["src/a.py", {"path": "./src/b.py", "symbol": "f"}, {"symbol": "x"}, 3, "../up.py"]}
    assert anchors_of(meta) == [Anchor("src/a.py"), Anchor("src/b.py", "f")]
    assert anchors_of({}) == [] and anchors_of(None) == []


def test_rename_delete_and_moved_symbol(repo: Path) -> None:
    checker = AnchorChecker(repo / "mem")
    anchors = anchors_of({"anchors": ["src/jobs.py", {"path": "src/api.py", "symbol": "serve"},
                                      "src/old.py", "docs/deploy.md"]})
    assert checker.check(anchors) == []  # everything holds

    git(repo, "mv", "src/jobs.py", "src/worker.py")
    git(repo, "rm", "-q", "src/old.py")
    write(repo, "src/api.py", "def handle():\n    pass\n")
    write(repo, "src/server.py", "def serve():\n    return handle()\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "reshape")
    issues = {i.anchor.path: i for i in AnchorChecker(repo / "mem").check(anchors)}
    assert set(issues) == {"src/jobs.py", "src/api.py", "src/old.py"}
    assert (issues["src/jobs.py"].status, issues["src/jobs.py"].new_path) == ("renamed", "src/worker.py")
    assert issues["src/old.py"].status == "gone" and "was deleted (commit" in issues["src/old.py"].message
    moved = issues["src/api.py"]
    assert (moved.status, moved.holders) == ("symbol-missing", ("src/server.py",))
    assert "now in src/server.py" in moved.message


def test_a_symbol_is_a_whole_word(repo: Path) -> None:
    write(repo, "src/jobs.py", "def run_pending_jobs():\n    pass\n")
    (issue,) = AnchorChecker(repo / "mem").check([Anchor("src/jobs.py", "run_pending")])
    assert issue.status == "symbol-missing"


def test_outside_the_repository_is_refused_by_the_schema(repo: Path, capsys) -> None:
    for bad in ("/etc/passwd", "../../secrets.txt", "https://example.com/a.py"):
        write(repo, "mem/memory/decisions/bad.md", decision(f"  - {bad}\n"))
        code, out, _ = run(capsys, "lint", "-w", str(repo / "mem"), "--format", "json")
        found = [f for f in json.loads(out)["findings"] if f["path"] == "memory/decisions/bad.md"]
        assert code == 1 and [f["code"] for f in found] == ["invalid-field"], bad


def test_lint_warns_at_commit_time_with_the_new_name(repo: Path, capsys) -> None:
    ws = str(repo / "mem")
    assert run(capsys, "lint", "-w", ws, "--strict")[0] == 0
    git(repo, "mv", "src/jobs.py", "src/worker.py")
    git(repo, "commit", "-qm", "rename")
    code, out, _ = run(capsys, "lint", "-w", ws, "--format", "json")
    (finding,) = json.loads(out)["findings"]
    assert code == 0 and finding["code"] == "anchor-drift" and finding["severity"] == "warning"
    assert "renamed to src/worker.py" in finding["message"] and finding["line"] == 8
    # the same with a warm cache, and for the one file a hook passes
    assert json.loads(run(capsys, "lint", "-w", ws, "--format", "json")[1])["findings"] == [finding]
    code, out, _ = run(capsys, "lint", "-w", ws, "--paths-only", "--format", "json",
                       str(repo / "mem/memory/decisions/jobs.md"))
    assert [f["code"] for f in json.loads(out)["findings"]] == ["anchor-drift"]
    assert run(capsys, "lint", "-w", ws, "--strict")[0] == 1


def _knowledge(anchor: str) -> str:
    return (f"---\ncreated_at: {NOW}\nupdated_at: {NOW}\nkind: howto\ndescription: How the job runner "
            "starts\nmodel_invocation: true\nuser_invocable: true\nlast_sources: []\n"
            f"anchors:\n  - {anchor}\n---\nStart the job runner with run_pending().\n")


def test_context_search_and_mcp_mark_a_stale_record_at_use(repo: Path, capsys) -> None:
    from memcli.mcpserver import tools
    from memcli.workspace import Workspace

    ws = repo / "mem"
    write(repo, "mem/knowledge/job-runner.md", _knowledge("{path: src/jobs.py, symbol: run_pending}"))
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "knowledge")
    entry = json.loads(run(capsys, "context", "-w", str(ws), "--json")[1])["knowledge"][0]
    assert "stale_anchors" not in entry  # everything holds: no mark
    hit = json.loads(run(capsys, "search", "job runner", "-w", str(ws), "--json")[1])[0]
    assert "stale_anchors" not in hit

    git(repo, "mv", "src/jobs.py", "src/worker.py")
    git(repo, "commit", "-qm", "rename")
    doc = json.loads(run(capsys, "context", "-w", str(ws), "--json")[1])
    (entry,) = doc["knowledge"]
    rename = git(repo, "rev-parse", "--short=7", "HEAD").strip()
    assert entry["stale_anchors"] == [f"src/jobs.py was renamed to src/worker.py (commit {rename}); "
                                      "update the anchor"]
    assert "- job-runner — How the job runner starts ⚠ stale anchor: src/jobs.py was renamed" in doc["text"]
    hits = json.loads(run(capsys, "search", "job runner", "-w", str(ws), "--json")[1])
    marked = {h["path"]: h.get("stale_anchors") for h in hits}
    assert "renamed to src/worker.py" in marked["knowledge/job-runner.md"][0]
    assert "stale anchor" in run(capsys, "search", "job runner", "-w", str(ws))[1]

    workspace = Workspace.open(ws)
    text, data = tools.read(workspace, "job-runner")
    assert text.startswith(MEMORY_LABEL + "\n~~~~memory\n---\n")  # the record, fenced as data
    assert "[memcli] ⚠ stale anchor: src/jobs.py was renamed" in text
    assert "src/jobs.py was renamed" in data["stale_anchors"][0]
    story = json.loads(tools.read(workspace, "job-runner", why=True).text.split("[memcli why]\n", 1)[1])
    assert story["path"] == "knowledge/job-runner.md" and story["history"][0]["subject"] == "knowledge"
    (first, *_) = tools.search(workspace, "job runner").data["hits"]
    assert "renamed to src/worker.py" in first["stale_anchors"][0]


def test_gc_report_shares_the_check(repo: Path, capsys) -> None:
    git(repo, "mv", "src/jobs.py", "src/worker.py")
    git(repo, "commit", "-qm", "rename")
    code, out, _ = run(capsys, "gc-report", "-w", str(repo / "mem"), "--format", "json")
    drift = [c for c in json.loads(out)["candidates"] if c["type"] == "code-drift"]
    assert code == 0 and len(drift) == 1
    (only,) = drift
    assert only["paths"] == ["memory/decisions/jobs.md"]
    assert only["evidence"]["status"] == "renamed" and only["evidence"]["new_path"] == "src/worker.py"


def test_the_history_kept_under_head_follows_new_commits(repo: Path) -> None:
    """What git's history says of a missing path is kept in the state folder under HEAD; new commits
    that touch the path or where it went are looked at, others leave it as it was."""
    from memcli.anchors import HISTORY_CACHE
    from memcli.workspace import Workspace

    anchors = [Anchor("src/jobs.py"), Anchor("src/old.py")]
    cache = Workspace.open(repo / "mem").state_dir / HISTORY_CACHE
    git(repo, "mv", "src/jobs.py", "src/worker.py")
    git(repo, "rm", "-q", "src/old.py")
    git(repo, "commit", "-qm", "rename and delete")
    first = {i.anchor.path: i.message for i in AnchorChecker(repo / "mem").check(anchors)}
    assert "renamed to src/worker.py" in first["src/jobs.py"] and "was deleted" in first["src/old.py"]
    kept = json.loads(cache.read_text())
    assert kept["head"] == git(repo, "rev-parse", "HEAD").strip() and "src/jobs.py" in kept["paths"]

    git(repo, "mv", "src/worker.py", "src/runner.py")  # where it went moves on: looked at again
    git(repo, "commit", "-qm", "rename again")
    again = {i.anchor.path: i for i in AnchorChecker(repo / "mem").check(anchors)}
    assert again["src/jobs.py"].new_path == "src/runner.py"
    assert again["src/old.py"].message == first["src/old.py"]

    write(repo, "README.md", "# unrelated\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "unrelated")
    later = {i.anchor.path: i.message for i in AnchorChecker(repo / "mem").check(anchors)}
    assert later == {p: i.message for p, i in again.items()}
    assert json.loads(cache.read_text())["head"] == git(repo, "rev-parse", "HEAD").strip()

    cache.write_text("{not json")  # a cache: unreadable is looked up again, never an error
    assert [i.message for i in AnchorChecker(repo / "mem").check(anchors)] == list(later.values())
