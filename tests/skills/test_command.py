"""`memcli skills sync` as a command, and the lint rules on the commit path."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml
from skills.kit import knowledge
from support.cli import run

from memcli.skills import place

REPO = Path(__file__).resolve().parents[2]


def test_without_an_agent_wired_it_says_how_to_get_one(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    knowledge(ws, "a-fact", "A fact.")
    code, out, _ = run(capsys, "skills", "sync", "-w", str(ws))
    assert code == 0 and "memcli hooks install" in out and "--agent claude-code|codex|gemini" in out
    assert not (ws / ".claude").exists()


def test_its_help_names_every_agent_it_writes_for(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "skills", "sync", "--help")
    assert code == 0
    assert f"{'|'.join(place.options())}|all" in " ".join(out.replace("│", " ").split())


def test_an_unknown_agent_is_a_usage_error(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "skills", "sync", "--agent", "cursor", "-w", str(ws))
    assert code == 2
    assert "--agent 'cursor': choose one of claude-code, codex, gemini, copilot, pi, opencode or all" in err


def test_json_says_what_was_written_and_what_each_agent_lists(
        ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    knowledge(ws, "a-fact", "A fact.")
    code, out, _ = run(capsys, "skills", "sync", "--agent", "codex", "--agent", "gemini-cli", "--json",
                       "-w", str(ws))
    data = json.loads(out)
    assert code == 0 and data["schema"] == "memcli.skills.sync" and data["agents"] == ["codex", "gemini"]
    assert data["written"] == [".agents/skills/a-fact"]
    assert data["listings"]["codex"] == {"skills": 1, "shortened": [], "bare": [], "omitted": [],
                                         "rule": "2% of the model's context window: 5,440 tokens"}


def test_lint_checks_a_skill_file_passed_on_the_commit_path(
        ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = ws / ".agents/skills/deploy/SKILL.md"
    bad.parent.mkdir(parents=True)
    bad.write_text("---\nname: deploy\ndescription: ''\n---\n", encoding="utf-8")
    code, out, _ = run(capsys, "lint", "--paths-only", "-w", str(ws), str(bad))
    assert code == 1 and ".agents/skills/deploy/SKILL.md:3: error skill-invalid" in out
    code, out, _ = run(capsys, "lint", "--paths-only", "-w", str(ws))
    assert code == 0  # no path passed: nothing of it is checked on the commit path


def test_the_pre_commit_hook_passes_every_skill_folder_an_agent_reads() -> None:
    (hook,) = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    script = (REPO / "hooks" / "pre-commit").read_text(encoding="utf-8")
    for folder in place.skill_folders():
        assert re.search(hook["files"], f"{folder}/deploy/SKILL.md"), folder
        assert f"':(glob){folder}/*/SKILL.md'" in script, folder  # the plain script passes them too
    assert re.search(hook["files"], "knowledge/a.md") and not re.search(hook["files"], "src/skills/x.md")


def test_the_plain_hook_script_stops_a_commit_of_a_skill_no_agent_loads(ws: Path) -> None:
    import os
    import shutil
    import subprocess
    import sys

    hook = ws / ".git/hooks/pre-commit"
    shutil.copy(REPO / "hooks/pre-commit", hook)
    hook.chmod(0o755)
    bad = ws / ".claude/skills/deploy/SKILL.md"
    bad.parent.mkdir(parents=True)
    bad.write_text("---\nname: Deploy\ndescription: Ship it.\n---\n", encoding="utf-8")
    env = {**os.environ, "MEMCLI": f"{sys.executable} -m memcli"}
    subprocess.run(["git", "add", "-A"], cwd=ws, check=True)
    done = subprocess.run(["git", "commit", "-q", "-m", "skill"], cwd=ws, env=env, capture_output=True,
                          text=True)
    assert done.returncode != 0 and "skill-invalid" in done.stdout + done.stderr
    bad.write_text("---\nname: deploy\ndescription: Ship it.\n---\n", encoding="utf-8")
    subprocess.run(["git", "add", "-A"], cwd=ws, check=True)
    done = subprocess.run(["git", "commit", "-q", "-m", "skill"], cwd=ws, env=env, capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stdout + done.stderr


PROBE = """
import sys
from {module} import main
try:
    main(sys.argv[1:])
except SystemExit as exc:
    print("TYPER:" + str("typer" in sys.modules), file=sys.stderr)
    raise
"""


def _route(module: str, root: Path, argv: list[str]) -> tuple:
    import os
    import subprocess
    import sys

    env = {**os.environ, "MEMCLI_STATE_DIR": str(root / ".memcli")}  # each route its own state
    done = subprocess.run([sys.executable, "-c", PROBE.format(module=module), *argv], cwd=root, env=env,
                          capture_output=True, text=True, timeout=120)
    *err, flag = done.stderr.splitlines()
    return done.returncode, done.stdout.replace(str(root), "ROOT"), "\n".join(err), flag == "TYPER:True"


@pytest.mark.parametrize("argv", [["--agent", "all"], ["-a", "codex", "--json", "--dry-run"],
                                  ["--agent=gemini", "-a", "claude-code"], ["--agent", "cursor"], []])
def test_the_lean_route_does_what_the_cli_does(tmp_path: Path, argv: list[str]) -> None:
    """`memcli skills sync` skips Typer (memcli.entry → memcli.lean), with the same effect."""
    outcomes = []
    for module in ("memcli.entry", "memcli.cli"):
        root = tmp_path / module
        (root / "memory").mkdir(parents=True)
        (root / "memcli.toml").write_text("", encoding="utf-8")
        knowledge(root, "a-fact", "A fact.")
        files = sorted(p.relative_to(root).as_posix() for p in root.rglob("*")
                       if p.is_file() and ".memcli" not in p.parts)
        outcomes.append((_route(module, root, ["skills", "sync", *argv]), files))
    (lean, lean_files), (typer, typer_files) = outcomes
    assert lean[:3] == typer[:3] and lean_files == typer_files
    assert not lean[3] and typer[3]


def test_other_shapes_go_through_typer(ws: Path) -> None:
    for argv in (["--help"], ["--agent"], ["extra"], ["--json", "--json"]):
        assert _route("memcli.entry", ws, ["skills", "sync", *argv])[3]


def test_what_an_agent_cannot_take_is_one_line_however_many_records(
        ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from skills.kit import workflow

    for i in range(8):
        workflow(ws, f"release-{i}")  # auto_invoke: false, which Gemini CLI cannot express
    code, out, _ = run(capsys, "skills", "sync", "--agent", "gemini", "-w", str(ws))
    assert code == 0 and out.count("not for gemini") == 1
    assert ("not for gemini: Gemini CLI cannot keep a skill to explicit use (model_invocation: false; a "
            "workflow's auto_invoke: false): 8 records (memory/workflow/release-0.md, ") in out
    assert "and 3 more)" in out


def test_agents_that_list_every_skill_share_one_line(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    knowledge(ws, "a-fact", "A fact.")
    code, out, _ = run(capsys, "skills", "sync", "--agent", "codex", "--agent", "gemini", "-w", str(ws))
    assert code == 0
    assert out.count("with their descriptions") == 1
    assert "codex, gemini list all 1 skill with their descriptions" in out


def test_with_no_skills_no_agent_listing_is_printed(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "skills", "sync", "--agent", "codex", "--agent", "gemini", "--dry-run",
                       "-w", str(ws))
    assert code == 0 and "0 skills" in out.splitlines()[0]
    assert "lists all" not in out and "list all" not in out
