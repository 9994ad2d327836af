"""The YAML that memcli reads besides records (memcli.plainyaml.load): a SKILL.md, an agent's skills
folder, a rule file's frontmatter, Copilot's workspace.yaml, a merge's sides and the eval's scratch
copy each meet an alias bomb with one line (a finding, an error, or the file read as plain text),
never a traceback, an expansion or a hang."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from adversarial.test_yaml_bombs import bomb
from lint.kit import make_workspace, record

from memcli.agents.copilot_cli.transcript import _title
from memcli.agents.documents.markdown import parse
from memcli.agents.parts import folder_skills
from memcli.cli import main
from memcli.eval.reach import without_anchors
from memcli.merge.driver import merge
from memcli.plainyaml import REFUSED, Refused, load
from memcli.skills.check import skill_problems

BOMB = bomb(9)  # 9**9 values when expanded, 400 bytes written
SKILL = ".claude/skills/deploy/SKILL.md"


@pytest.mark.parametrize(("text", "refused"), [
    (BOMB, "a YAML anchor (&a0)"),
    ("a: *x", "a YAML alias (*x)"),
    ("a: !!python/object:os.system x", "an explicit YAML tag (!!python/object:os.system)"),
    ("a: {x: 1}\nb:\n  <<: {x: 2}", "a YAML merge key (<<)"),
    ("deep: " + "[" * 1000, "collections nested more than 100 levels deep"),
])
def test_load_refuses_in_one_line(text: str, refused: str) -> None:
    with pytest.raises(Refused) as info:
        load(text)
    assert str(info.value).startswith(REFUSED) and refused in str(info.value)
    assert "\n" not in str(info.value)


def test_load_reads_plain_yaml_as_safe_load_does() -> None:
    assert load("name: deploy\ndescription: 日本語の説明\nlist: [1, 2]\n") == {
        "name": "deploy", "description": "日本語の説明", "list": [1, 2]}


def test_a_skill_bomb_is_one_lint_finding(tmp_path: Path, capsys) -> None:
    text = f"---\nname: deploy\ndescription: Ship it.\n{BOMB}\n---\nSteps.\n"
    assert skill_problems(text.encode(), "deploy") == [(4, f"{REFUSED}a YAML anchor (&a0); write the value "
                                                           "out where it is used")]
    root = make_workspace(tmp_path / "ws", {SKILL: text, "memory/decisions/a.md": record("decision")})
    with pytest.raises(SystemExit) as exit_info:
        main(["lint", "--workspace", str(root), "--format", "json"])
    out, err = capsys.readouterr()
    assert exit_info.value.code == 1 and "Traceback" not in err
    found = [(f["code"], f["line"]) for f in json.loads(out)["findings"] if f["path"] == SKILL]
    assert found == [("skill-invalid", 4)]


def test_an_agents_skill_with_a_bomb_is_listed_by_its_folder(tmp_path: Path) -> None:
    (tmp_path / "deploy").mkdir()
    text = f"---\nname: other\n{BOMB}\n---\nSteps.\n"
    (tmp_path / "deploy" / "SKILL.md").write_text(text, encoding="utf-8")
    [listed] = folder_skills(tmp_path)
    assert (listed.name, listed.description) == ("deploy", "")


def test_a_rule_file_with_a_bomb_says_so_and_keeps_its_plain_fields() -> None:
    doc = parse(f"---\nglobs: src/**\n{BOMB}\n---\nUse tabs.\n")
    assert doc.meta_error is not None and doc.meta_error.startswith(REFUSED)
    assert doc.meta["globs"] == "src/**"
    assert all(isinstance(v, str) for v in doc.meta.values())  # nothing built from the aliases
    assert doc.blocks[-1].text == "Use tabs."


def test_copilots_workspace_yaml_with_a_bomb_leaves_the_session_untitled(tmp_path: Path) -> None:
    (tmp_path / "workspace.yaml").write_text(f"{BOMB}\nname: *a9\n", encoding="utf-8")
    assert _title(tmp_path / "events.jsonl") is None
    (tmp_path / "workspace.yaml").write_text("name: ship the release\n", encoding="utf-8")
    assert _title(tmp_path / "events.jsonl") == "ship the release"


def test_a_merge_side_with_a_bomb_is_a_conflict_that_loses_nothing() -> None:
    base = record("decision").encode()
    theirs = record("decision").replace("\n---\n", "\nkeep-me: yes\n---\n", 1).encode()
    ours = record("decision").replace("\n---\n", f"\n{BOMB}\n---\n", 1).encode()
    out = merge(base, ours, theirs, "memory/decisions/a.md")
    assert not out.clean and "does not parse" in out.why[0] and REFUSED in out.why[0]
    assert b"keep-me" in out.data and b"&a0" in out.data


def test_the_eval_copy_of_a_bomb_is_left_as_it_is() -> None:
    data = record("decision").replace("\n---\n", f"\nanchors: [src/a.py]\n{BOMB}\n---\n", 1).encode()
    assert without_anchors(data) == data
