"""`memcli skills sync` on a workspace: what each record becomes, where, and what is left alone."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import yaml
from skills.kit import git, knowledge, run_sync, stamps, tree, workflow

from memcli.skills.check import skill_problems
from memcli.skills.render import MARKER


def front(path: Path) -> tuple[dict, str]:
    text = path.read_text(encoding="utf-8")
    _, meta, body = text.split("---\n", 2)
    return yaml.safe_load(meta), body


def test_a_knowledge_record_becomes_a_skill_the_agents_accept(ws: Path) -> None:
    knowledge(ws, "restore-backup", "How to restore the nightly backup: 手順は NAS から.",
              "Stop the app, copy `backup.db` over `data/app.db`.", model=True, user=False)
    run_sync(ws, "claude-code")
    skill = ws / ".claude/skills/restore-backup/SKILL.md"
    meta, body = front(skill)
    assert meta == {"name": "restore-backup", "user-invocable": False,
                    "description": "How to restore the nightly backup: 手順は NAS から."}
    assert body.startswith("Stop the app, copy `backup.db` over `data/app.db`.\n")
    assert "`knowledge/restore-backup.md`" in body and "`memcli why restore-backup`" in body
    assert skill_problems(skill.read_bytes(), "restore-backup") == []
    assert (ws / ".claude/skills/restore-backup" / MARKER).is_file()


def test_explicit_use_only_in_each_agents_own_words(ws: Path) -> None:
    knowledge(ws, "deploy-prod", "Deploy to production.", model=False)
    workflow(ws, "release", auto=False, requires=("deploy-prod",))
    result = run_sync(ws, "claude-code", "codex")
    meta, body = front(ws / ".claude/skills/release/SKILL.md")
    assert meta["disable-model-invocation"] is True
    assert "Requires: `deploy-prod`." in body
    # Codex: a file beside SKILL.md, in .agents/skills/ (no other agent synced reads it)
    policy = ws / ".agents/skills/deploy-prod/agents/openai.yaml"
    assert yaml.safe_load(policy.read_text()) == {"policy": {"allow_implicit_invocation": False}}
    assert "disable-model-invocation" not in front(ws / ".agents/skills/deploy-prod/SKILL.md")[0]
    assert result.missed == []


def test_a_folder_two_agents_read_is_written_once(ws: Path) -> None:
    knowledge(ws, "wal-mode", "What WAL mode is.")
    result = run_sync(ws, "all")
    assert {(f["folder"], tuple(f["agents"])) for f in result.folders} == {
        (".claude/skills", ("claude-code", "copilot")),
        (".agents/skills", ("codex", "gemini", "copilot", "pi", "opencode"))}
    assert sorted(tree(ws)) == [".agents/skills/wal-mode/.memcli-skill", ".agents/skills/wal-mode/SKILL.md",
                                ".claude/skills/wal-mode/.memcli-skill", ".claude/skills/wal-mode/SKILL.md"]
    # Copilot reads both copies and takes one (`.agents/skills/` before `.claude/skills/`)
    assert result.listings["copilot"]["skills"] == 1


def test_copilot_alone_gets_github_skills_and_shares_a_folder_another_agent_reads(ws: Path) -> None:
    knowledge(ws, "wal-mode", "What WAL mode is.")
    knowledge(ws, "deploy-prod", "Deploy to production.", model=False)
    run_sync(ws, "copilot")
    assert front(ws / ".github/skills/deploy-prod/SKILL.md")[0]["disable-model-invocation"] is True
    knowledge(ws, "wal-mode", "What WAL mode is.", user=False)
    run_sync(ws, "copilot")
    assert front(ws / ".github/skills/wal-mode/SKILL.md")[0]["user-invocable"] is False  # Claude's words
    assert sorted({p.split("/")[0] + "/" + p.split("/")[1] for p in tree(ws)}) == [".github/skills"]
    result = run_sync(ws, "claude-code", "copilot")  # one copy serves both; .github's are removed
    assert sorted({"/".join(p.split("/")[:2]) for p in tree(ws)}) == [".claude/skills"]
    assert sorted(result.removed) == [".github/skills/deploy-prod", ".github/skills/wal-mode"]
    assert not (ws / ".github").exists()


def test_explicit_use_only_is_not_written_where_gemini_would_list_it(ws: Path) -> None:
    """Gemini CLI reads only name and description: an explicit-only skill in `.agents/skills/` would
    be offered to its model. Codex gets it in its own `.codex/skills/`; Gemini does not get it."""
    knowledge(ws, "deploy-prod", "Deploy to production.", model=False)
    result = run_sync(ws, "codex", "gemini")
    assert not (ws / ".agents/skills/deploy-prod").exists()
    assert (ws / ".codex/skills/deploy-prod/agents/openai.yaml").is_file()
    assert [(m["path"], m["agent"]) for m in result.missed] == [("knowledge/deploy-prod.md", "gemini")]


def test_second_sync_writes_nothing(ws: Path) -> None:
    knowledge(ws, "a-fact", "A fact.")
    workflow(ws, "release")
    first = run_sync(ws)
    before = stamps(ws)
    again = run_sync(ws)
    assert again.unchanged and again.written == again.removed == []
    assert stamps(ws) == before
    assert again.folders == first.folders
    # without the state folder's record of it, everything is read again, and still nothing written
    (Path(os.environ["MEMCLI_STATE_DIR"]) / "skills.json").unlink()
    cold = run_sync(ws)
    assert not cold.unchanged and cold.written == cold.removed == []
    assert stamps(ws) == before


def test_an_edit_of_the_record_is_brought_in_a_hand_edit_of_the_skill_is_noticed(ws: Path) -> None:
    record = knowledge(ws, "a-fact", "A fact.", "Old body.")
    run_sync(ws, "claude-code")
    skill = ws / ".claude/skills/a-fact/SKILL.md"
    record.write_text(record.read_text().replace("Old body.", "New body."), encoding="utf-8")
    assert run_sync(ws, "claude-code").written == [".claude/skills/a-fact"]
    assert "New body." in skill.read_text()
    skill.write_text("edited by hand\n", encoding="utf-8")  # the marker's hash no longer matches
    record.write_text(record.read_text().replace("New body.", "Newer body."), encoding="utf-8")
    result = run_sync(ws, "claude-code")
    assert result.written == []
    assert result.edited == [{"skill": ".claude/skills/a-fact", "files": ["SKILL.md"]}]
    assert skill.read_text() == "edited by hand\n"
    record.unlink()  # nor is it removed with its record
    assert run_sync(ws, "claude-code").removed == [] and skill.read_text() == "edited by hand\n"
    shutil.rmtree(ws / ".claude/skills/a-fact")  # the person lets memcli have it again
    knowledge(ws, "a-fact", "A fact.", "Newer body.")
    assert run_sync(ws, "claude-code").written == [".claude/skills/a-fact"]
    assert "Newer body." in skill.read_text()


def test_a_removed_or_renamed_record_takes_its_skill_with_it(ws: Path) -> None:
    old = knowledge(ws, "old-name", "A fact.")
    knowledge(ws, "stays", "Another fact.")
    run_sync(ws, "claude-code")
    old.rename(old.with_name("new-name.md"))
    result = run_sync(ws, "claude-code")
    assert (result.written, result.removed) == ([".claude/skills/new-name"], [".claude/skills/old-name"])
    assert not (ws / ".claude/skills/old-name").exists()
    (ws / "knowledge/new-name.md").unlink()
    (ws / "knowledge/stays.md").unlink()
    assert run_sync(ws, "claude-code").removed == [".claude/skills/new-name", ".claude/skills/stays"]
    assert not (ws / ".claude").exists()  # emptied, so gone (nothing of anyone's was in it)


def test_a_skill_a_person_wrote_is_never_touched(ws: Path) -> None:
    knowledge(ws, "deploy", "Deploy.")
    mine = ws / ".claude/skills/deploy/SKILL.md"
    mine.parent.mkdir(parents=True)
    mine.write_text("---\nname: deploy\ndescription: Our own deploy steps.\n---\nMine.\n", encoding="utf-8")
    (ws / ".claude/skills/other/").mkdir()
    result = run_sync(ws, "claude-code")
    assert result.kept == [{"skill": ".claude/skills/deploy", "record": "knowledge/deploy.md"}]
    assert result.written == []
    assert mine.read_text() == "---\nname: deploy\ndescription: Our own deploy steps.\n---\nMine.\n"
    (ws / "knowledge/deploy.md").unlink()
    assert run_sync(ws, "claude-code").removed == []
    assert mine.is_file() and (ws / ".claude/skills/other").is_dir()


def test_files_a_person_added_to_a_generated_skill_stay(ws: Path) -> None:
    record = knowledge(ws, "a-fact", "A fact.")
    run_sync(ws, "claude-code")
    script = ws / ".claude/skills/a-fact/scripts/check.sh"
    script.parent.mkdir()
    script.write_text("echo ok\n", encoding="utf-8")
    record.unlink()
    result = run_sync(ws, "claude-code")
    assert result.left == [".claude/skills/a-fact"]
    assert script.is_file() and not (ws / ".claude/skills/a-fact/SKILL.md").exists()


def test_records_that_cannot_become_skills_are_reported(ws: Path) -> None:
    knowledge(ws, "long", "x" * 1025, model=False)
    knowledge(ws, "nobody", "Reference only.", model=False, user=False)
    knowledge(ws, "release", "Knowledge of the same name.")
    workflow(ws, "release")
    (ws / "knowledge/broken.md").write_text("no frontmatter\n", encoding="utf-8")
    result = run_sync(ws, "claude-code")
    assert sorted(u["path"] for u in result.unfit) == [
        "knowledge/broken.md", "knowledge/long.md", "knowledge/nobody.md", "knowledge/release.md"]
    assert sorted(tree(ws)) == [".claude/skills/release/.memcli-skill", ".claude/skills/release/SKILL.md"]
    assert front(ws / ".claude/skills/release/SKILL.md")[0]["description"] == "How to release."


def test_dry_run_writes_nothing(ws: Path) -> None:
    knowledge(ws, "a-fact", "A fact.")
    result = run_sync(ws, "claude-code", dry_run=True)
    assert result.written == [".claude/skills/a-fact"] and result.dry_run
    assert tree(ws) == {}


def test_an_interrupted_write_is_finished_by_the_next_sync(ws: Path) -> None:
    """The marker is written first: a sync stopped before SKILL.md leaves a folder memcli owns."""
    knowledge(ws, "a-fact", "A fact.")
    run_sync(ws, "claude-code")
    skill = ws / ".claude/skills/a-fact/SKILL.md"
    whole = skill.read_bytes()
    skill.unlink()  # as if the sync had stopped after the marker
    assert run_sync(ws, "claude-code").written == [".claude/skills/a-fact"]
    assert skill.read_bytes() == whole


def _leftover(folder: Path, target: str) -> Path:
    """The temp file a write of `target` killed before its rename leaves (as memcli.atomicio makes it)."""
    folder.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix=f".{target}.", suffix=".tmp", dir=folder)
    os.write(fd, b'{"generated_by": "memcli sk')  # cut off mid-write
    os.close(fd)
    return Path(name)


def test_a_sync_killed_before_its_marker_landed_is_finished_by_the_next(ws: Path) -> None:
    """A kill between making a skill's folder and renaming its marker into place leaves a folder
    without a marker: empty, or holding the marker's temp file. No person wrote that: the next sync
    makes the skill there and sweeps the temp, as it would in a folder that was never begun."""
    knowledge(ws, "a-fact", "A fact.")
    knowledge(ws, "b-fact", "B fact.")
    run_sync(ws, "claude-code")
    whole = tree(ws)
    shutil.rmtree(ws / ".claude/skills")
    temp = _leftover(ws / ".claude/skills/a-fact", MARKER)
    (ws / ".claude/skills/b-fact").mkdir()
    result = run_sync(ws, "claude-code")
    assert result.written == [".claude/skills/a-fact", ".claude/skills/b-fact"] and result.kept == []
    assert tree(ws) == whole and not temp.exists()
    # with its record gone, the folder such a kill began goes too (an empty one is nobody's: left)
    (ws / "knowledge/a-fact.md").unlink()
    (ws / "knowledge/b-fact.md").unlink()
    shutil.rmtree(ws / ".claude/skills")
    _leftover(ws / ".claude/skills/a-fact", MARKER)
    (ws / ".claude/skills/b-fact").mkdir()
    result = run_sync(ws, "claude-code")
    assert not (ws / ".claude/skills/a-fact").exists() and (ws / ".claude/skills/b-fact").is_dir()
    assert result.kept == [] and result.left == []


def test_what_looks_half_written_but_holds_a_persons_file_is_theirs(ws: Path) -> None:
    knowledge(ws, "a-fact", "A fact.")
    temp = _leftover(ws / ".claude/skills/a-fact", MARKER)
    notes = ws / ".claude/skills/a-fact/notes.txt"
    notes.write_text("mine\n", encoding="utf-8")
    result = run_sync(ws, "claude-code")
    assert result.written == [] and result.kept == [{"skill": ".claude/skills/a-fact",
                                                     "record": "knowledge/a-fact.md"}]
    assert sorted(p.name for p in notes.parent.iterdir()) == sorted([temp.name, "notes.txt"])


def test_a_killed_write_in_a_skill_memcli_owns_is_swept(ws: Path) -> None:
    """A kill mid-write of SKILL.md (its marker in place) leaves SKILL.md's temp file beside it: the
    next sync removes it, and a removed record's folder goes whole instead of being left behind."""
    knowledge(ws, "a-fact", "A fact.")
    knowledge(ws, "b-fact", "B fact.")
    run_sync(ws, "claude-code")
    whole = tree(ws)
    kept = _leftover(ws / ".claude/skills/a-fact", "SKILL.md")
    gone = _leftover(ws / ".claude/skills/b-fact", "SKILL.md")
    (ws / "knowledge/b-fact.md").unlink()
    result = run_sync(ws, "claude-code")
    assert result.removed == [".claude/skills/b-fact"] and result.left == []
    assert not kept.exists() and not gone.parent.exists()
    assert tree(ws) == {k: v for k, v in whole.items() if "/b-fact/" not in k}


def test_not_committed_means_git_ignores_exactly_the_generated_folders(ws: Path) -> None:
    knowledge(ws, "a-fact", "A fact.")
    mine = ws / ".claude/skills/mine/SKILL.md"
    mine.parent.mkdir(parents=True)
    mine.write_text("---\nname: mine\ndescription: Mine.\n---\n", encoding="utf-8")
    (ws / "memcli.toml").write_text("[skills]\ncommit = false\n", encoding="utf-8")
    run_sync(ws, "claude-code")
    assert (ws / ".claude/skills/a-fact/.gitignore").read_text() == "*\n"
    assert git(ws, "status", "--porcelain", "--untracked-files=all", ".claude").splitlines() == [
        "?? .claude/skills/mine/SKILL.md"]
    (ws / "memcli.toml").write_text("[skills]\ncommit = true\n", encoding="utf-8")
    assert run_sync(ws, "claude-code").written == [".claude/skills/a-fact"]
    assert not (ws / ".claude/skills/a-fact/.gitignore").exists()
    assert "?? .claude/skills/a-fact/SKILL.md" in git(ws, "status", "--porcelain", "--untracked-files=all")


def test_what_else_an_agent_lists_is_seen_by_the_next_sync(ws: Path) -> None:
    """What an agent lists depends on more than the records: its cap (Codex's window) and the other
    skills in its folders. A change there is not answered from the last sync's report."""
    for i in range(40):
        knowledge(ws, f"k{i:02d}", f"How to handle case {i} of the subsystem when it misbehaves.")
    assert run_sync(ws, "codex").listings["codex"]["shortened"] == []
    (ws / ".codex").mkdir()
    (ws / ".codex/config.toml").write_text("model_context_window = 30000\n", encoding="utf-8")
    assert len(run_sync(ws, "codex").listings["codex"]["shortened"]) == 40
    assert run_sync(ws, "codex").unchanged  # and then nothing to do again
    for i in range(40):  # a person's skills crowd the cap
        mine = ws / ".agents/skills" / f"mine-{i:02d}" / "SKILL.md"
        mine.parent.mkdir(parents=True)
        mine.write_text(f"---\nname: mine-{i:02d}\ndescription: A skill of mine.\n---\n", encoding="utf-8")
    again = run_sync(ws, "codex")
    assert not again.unchanged and again.written == [] and again.listings["codex"]["bare"]


def test_pi_says_explicit_use_only_and_opencode_cannot(ws: Path) -> None:
    """Pi keeps a skill with `disable-model-invocation: true` out of its model's listing; OpenCode
    reads name and description only. Both read `.agents/skills/`: the explicit-only record goes to
    Pi's own `.pi/skills/`, and not to OpenCode (it would offer it to its model)."""
    knowledge(ws, "wal-mode", "What WAL mode is.")
    knowledge(ws, "deploy-prod", "Deploy to production.", model=False)
    result = run_sync(ws, "pi", "opencode")
    assert {(f["folder"], tuple(f["agents"])) for f in result.folders} == {
        (".agents/skills", ("pi", "opencode")), (".pi/skills", ("pi",))}
    assert front(ws / ".pi/skills/deploy-prod/SKILL.md")[0]["disable-model-invocation"] is True
    assert front(ws / ".agents/skills/wal-mode/SKILL.md")[0] == {"name": "wal-mode",
                                                                 "description": "What WAL mode is."}
    assert not (ws / ".agents/skills/deploy-prod").exists()
    assert [(m["path"], m["agent"]) for m in result.missed] == [("knowledge/deploy-prod.md", "opencode")]
    run_sync(ws, "pi")  # Pi alone: the folder it shares with the other agents
    assert front(ws / ".agents/skills/deploy-prod/SKILL.md")[0]["disable-model-invocation"] is True
    assert not (ws / ".pi/skills").exists()
