"""Skills follow the memory by themselves: at `hooks install` / `uninstall`, and after each
consolidation, whose changed skills get a commit of their own (`[skills] commit`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from consolidate.helpers import configure, dispose_call, finish_call, init_repo, write_staging
from consolidate.test_knowledge import create
from consolidate.test_run import done
from skills.kit import git, knowledge, run_sync, tree
from support.cli import run
from support.fake_llm import Reply

from memcli.consolidate.run import Options
from memcli.consolidate.run import run as consolidate
from memcli.workspace import Workspace

ITEM = {"attempts": [{"title": "SQLite checkpoint tuning", "outcome": "PRAGMA wal_checkpoint(TRUNCATE) "
                      "nightly keeps the WAL file small", "lesson": "checkpoint nightly"}]}


@pytest.fixture
def wired(example_ws: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """The example workspace in git, Claude Code wired (its skills written and committed)."""
    configure(example_ws)
    init_repo(example_ws)
    code, out, _ = run(capsys, "hooks", "install", "--agent", "claude-code", "-w", str(example_ws))
    assert code == 0 and "skills: wrote 4, removed 0 (4 skills)" in out
    git(example_ws, "add", "-A")
    git(example_ws, "commit", "-q", "-m", "wire claude code")
    return example_ws


def test_hooks_install_writes_the_skills_and_uninstall_takes_them_back(
        wired: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert sorted(p.split("/")[2] for p in tree(wired) if p.endswith("SKILL.md")) == [
        "release", "sqlite-backup", "test-commands", "wal-mode"]
    code, out, _ = run(capsys, "hooks", "uninstall", "--agent", "claude-code", "-w", str(wired))
    assert code == 0 and "removed 4" in out
    assert tree(wired) == {}


def test_a_dry_run_install_writes_no_skill(example_ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "hooks", "install", "--dry-run", "-w", str(example_ws))[0] == 0
    assert tree(example_ws) == {}


def test_auto_off_leaves_the_skills_to_the_user(example_ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (example_ws / "memcli.toml").write_text("[skills]\nauto = false\n", encoding="utf-8")
    code, out, _ = run(capsys, "hooks", "install", "--agent", "claude-code", "-w", str(example_ws))
    assert code == 0 and "skills:" not in out and tree(example_ws) == {}


def test_a_consolidation_commit_is_followed_by_a_commit_of_its_skills(
        wired: Path, fake_llm, capsys: pytest.CaptureFixture[str]) -> None:
    for i, session in enumerate(["sa", "sb", "sc"]):
        write_staging(wired, f"x{i}", session, (i, i + 5), ITEM)
    fake_llm.push(create(("sa", 0, 5)), Reply(tool_calls=[
        dispose_call(["i1", "i2", "i3"], "integrated", ["knowledge/sqlite-wal-checkpoints.md"], "know-how"),
        finish_call()]), done())
    assert consolidate(Workspace.open(wired), Options()) == 0
    assert "consolidate: skills: wrote 1, removed 0 (5 skills); committed" in capsys.readouterr().err
    log = git(wired, "log", "-2", "--format=%s").splitlines()
    assert log[0] == "skills: 1 written, 0 removed (memcli skills sync)"
    skill = ".claude/skills/sqlite-wal-checkpoints"
    assert git(wired, "show", "--name-only", "--format=", "HEAD").split() == [f"{skill}/.memcli-skill",
                                                                           f"{skill}/SKILL.md"]
    assert "knowledge/sqlite-wal-checkpoints.md" in git(wired, "show", "--name-only", "--format=", "HEAD~1")
    assert git(wired, "status", "--porcelain", ".claude") == ""


def test_skills_not_committed_are_synced_but_left_out_of_git(wired: Path, fake_llm,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    text = (wired / "memcli.toml").read_text(encoding="utf-8")
    (wired / "memcli.toml").write_text(text + "\n[skills]\ncommit = false\n", encoding="utf-8")
    git(wired, "commit", "-qam", "skills not committed")
    assert "wrote 4" in run(capsys, "skills", "sync", "-w", str(wired))[1]  # each gets its .gitignore
    for i, session in enumerate(["sa", "sb", "sc"]):
        write_staging(wired, f"x{i}", session, (i, i + 5), ITEM)
    fake_llm.push(create(("sa", 0, 5)), Reply(tool_calls=[
        dispose_call(["i1", "i2", "i3"], "integrated", ["knowledge/sqlite-wal-checkpoints.md"], "know-how"),
        finish_call()]), done())
    assert consolidate(Workspace.open(wired), Options()) == 0
    assert "consolidate: skills: wrote 1, removed 0 (5 skills)\n" in capsys.readouterr().err  # no commit
    assert (wired / ".claude/skills/sqlite-wal-checkpoints/SKILL.md").is_file()
    assert not git(wired, "log", "-1", "--format=%s").startswith("skills:")
    assert ".claude/skills/sqlite-wal-checkpoints" not in git(wired, "status", "--porcelain", "-uall")


def test_a_record_a_person_adds_reaches_the_agent_at_the_next_sync(
        wired: Path, capsys: pytest.CaptureFixture[str]) -> None:
    knowledge(wired, "new-howto", "A new how-to.")
    code, out, _ = run(capsys, "skills", "sync", "-w", str(wired))
    assert code == 0 and "wrote .claude/skills/new-howto/" in out


def test_the_skills_commit_holds_the_skills_and_nothing_else_staged(ws: Path) -> None:
    from memcli.skills.after import commit

    (ws / "README.md").write_text("readme\n", encoding="utf-8")
    git(ws, "add", "README.md")
    git(ws, "commit", "-qm", "start")
    knowledge(ws, "a-fact", "A fact.")
    (ws / "README.md").write_text("the user's staged edit\n", encoding="utf-8")
    git(ws, "add", "README.md")
    assert commit(ws, run_sync(ws, "claude-code")) == "; committed"
    assert git(ws, "show", "--name-only", "--format=", "HEAD").split() == [
        ".claude/skills/a-fact/.memcli-skill", ".claude/skills/a-fact/SKILL.md"]
    assert git(ws, "diff", "--cached", "--name-only").split() == ["README.md"]  # still staged, its own
    (ws / "knowledge/a-fact.md").unlink()
    assert commit(ws, run_sync(ws, "claude-code")) == "; committed"  # the removal, committed alike
    assert git(ws, "show", "--name-status", "--format=", "HEAD").split() == [
        "D", ".claude/skills/a-fact/.memcli-skill", "D", ".claude/skills/a-fact/SKILL.md"]


@pytest.mark.parametrize("agent", ["pi", "opencode"])
def test_an_agent_wired_by_its_extension_or_plugin_gets_the_skills(
        agent: str, example_ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Pi takes memcli through one extension file and OpenCode through a plugin, not hook entries:
    installing them is what wires them, for skills as for `hooks install`."""
    code, out, _ = run(capsys, "hooks", "install", "--agent", agent, "-w", str(example_ws))
    assert code == 0 and "skills: wrote" in out, out
    assert (example_ws / ".agents/skills/sqlite-backup/SKILL.md").is_file()
    code, out, _ = run(capsys, "hooks", "uninstall", "--agent", agent, "-w", str(example_ws))
    assert code == 0 and not (example_ws / ".agents/skills").exists()
