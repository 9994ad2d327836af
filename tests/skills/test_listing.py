"""What each agent lists of many skills, as memcli predicts it from the agent's own rules."""

from __future__ import annotations

from pathlib import Path

import pytest

from memcli.agents.claude_code import skills as claude
from memcli.agents.codex import skills as codex
from memcli.agents.copilot_cli import skills as copilot
from memcli.agents.gemini_cli import skills as gemini
from memcli.agents.opencode import skills as opencode
from memcli.agents.parts import Listed
from memcli.agents.pi import skills as pi


def many(root: Path, n: int, description: str = "How to handle the subsystem when it misbehaves."
         ) -> list[Listed]:
    return [Listed(f"k{i:03d}", f"{description} {i}", root / f"k{i:03d}" / "SKILL.md") for i in range(n)]


def test_gemini_lists_everything(tmp_path: Path) -> None:
    seen = gemini.DIALECT.listing(many(tmp_path, 500), tmp_path)
    assert seen.shortened == seen.bare == seen.omitted == ()


@pytest.mark.parametrize(("window", "shortened", "omitted"), [
    (272_000, 0, 0),  # 200 skills fit 5 440 tokens whole
    (100_000, 200, 0),  # 2 000 tokens: every description cut alike
    # 600 tokens: not even the names fit (9 tokens each), less the table naming the folder (its
    # length varies with the test's temporary folder): about 65 stay, in name order
    (30_000, 0, range(130, 140)),
])
def test_codex_cap_is_two_percent_of_the_window(tmp_path: Path, window: int, shortened: int,
                                                omitted: int | range) -> None:
    (tmp_path / ".codex").mkdir()
    (tmp_path / ".codex/config.toml").write_text(f"model_context_window = {window}\n", encoding="utf-8")
    seen = codex.listing(many(tmp_path, 200), tmp_path)
    assert len(seen.shortened) == shortened
    assert len(seen.omitted) in (omitted if isinstance(omitted, range) else [omitted])
    if seen.omitted:
        kept = 200 - len(seen.omitted)
        assert seen.bare == tuple(f"k{i:03d}" for i in range(kept))  # listed by name, in name order
        assert seen.omitted == tuple(f"k{i:03d}" for i in range(kept, 200))
    assert f"{window * 2 // 100:,} tokens" in seen.rule


def test_codex_counts_the_other_skills_it_lists_first(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Its own system skills come before the project's: they take part of the cap."""
    home = tmp_path / "codex-home"
    monkeypatch.setenv("CODEX_HOME", str(home))
    (tmp_path / ".codex").mkdir()
    (tmp_path / ".codex/config.toml").write_text("model_context_window = 30000\n", encoding="utf-8")
    alone = codex.listing(many(tmp_path, 200), tmp_path)
    for i in range(20):
        skill = home / "skills/.system" / f"sys-{i}" / "SKILL.md"
        skill.parent.mkdir(parents=True)
        skill.write_text(f"---\nname: sys-{i}\ndescription: A system skill.\n---\n", encoding="utf-8")
    crowded = codex.listing(many(tmp_path, 200), tmp_path)
    assert len(crowded.omitted) > len(alone.omitted)


def test_codex_window_defaults_to_what_it_assumes_for_an_unknown_model(tmp_path: Path) -> None:
    assert codex.window(tmp_path) == 272_000


def test_claude_code_names_every_skill_and_keeps_descriptions_while_they_fit(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert claude.listing(many(tmp_path, 20), tmp_path).bare == ()
    monkeypatch.setenv("SLASH_COMMAND_TOOL_CHAR_BUDGET", str(claude.OWN_CHARS + 2_000))
    seen = claude.listing(many(tmp_path, 40), tmp_path)
    assert seen.omitted == ()  # it never leaves a skill out, only its description
    kept = 40 - len(seen.bare)
    assert 0 < kept < 40 and seen.bare == tuple(f"k{i:03d}" for i in range(kept, 40))


def test_codex_does_not_count_a_skill_it_keeps_to_explicit_use(tmp_path: Path) -> None:
    """A person's skill with `allow_implicit_invocation: false` is not in its model's listing, so it
    takes none of the cap; one without the policy does."""
    (tmp_path / ".codex").mkdir()
    (tmp_path / ".codex/config.toml").write_text("model_context_window = 30000\n", encoding="utf-8")
    alone = codex.listing(many(tmp_path, 200), tmp_path)
    for i in range(20):
        skill = tmp_path / ".agents/skills" / f"a-mine-{i}"  # ahead of k000...
        (skill / "agents").mkdir(parents=True)
        (skill / "SKILL.md").write_text(f"---\nname: a-mine-{i}\ndescription: Mine.\n---\n", encoding="utf-8")
        (skill / codex.POLICY).write_text(codex.EXPLICIT_ONLY, encoding="utf-8")
    assert codex.listing(many(tmp_path, 200), tmp_path) == alone
    (tmp_path / ".agents/skills/a-mine-0" / codex.POLICY).unlink()
    assert len(codex.listing(many(tmp_path, 200), tmp_path).omitted) > len(alone.omitted)


def test_codex_pays_for_its_table_of_skill_roots(tmp_path: Path) -> None:
    """Over the cap it names each folder once in a table (`r0` = its path) and the skills by that
    alias; the table is paid from the cap (less what its shorter wording saves), so skills in a
    deeper folder leave more of them out."""
    (tmp_path / ".codex").mkdir()
    (tmp_path / ".codex/config.toml").write_text("model_context_window = 30000\n", encoding="utf-8")
    near = codex.listing(many(tmp_path / "s", 200), tmp_path)
    deep = codex.listing(many(tmp_path / ("d" * 200) / ("e" * 200), 200), tmp_path)
    assert len(deep.omitted) - len(near.omitted) >= 5  # 400 more characters: 100 tokens, 9 a line


def test_claude_code_shares_its_budget_with_the_other_skills_it_lists(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A person's skills in the project and the user's own take part of the budget; only memcli's
    are reported."""
    monkeypatch.setenv("SLASH_COMMAND_TOOL_CHAR_BUDGET", str(claude.OWN_CHARS + 3_000))
    ours = many(tmp_path / ".claude/skills", 40)
    alone = claude.listing(ours, tmp_path)
    for folder, name in ((tmp_path / ".claude/skills", "a-mine"), (Path.home() / ".claude/skills", "z-mine")):
        for i in range(10):  # in name order, ahead of memcli's and after them
            skill = folder / f"{name}-{i}" / "SKILL.md"
            skill.parent.mkdir(parents=True)
            skill.write_text(f"---\nname: {name}-{i}\ndescription: {'Mine. ' * 10}\n---\n", encoding="utf-8")
    crowded = claude.listing(ours, tmp_path)
    assert alone.bare == () and crowded.bare and all(n.startswith("k") for n in crowded.bare)


def person_skill(folder: Path, name: str, description: str, extra: str = "") -> None:
    skill = folder / name / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text(f"---\nname: {name}\ndescription: {description}\n{extra}---\nMine.\n", encoding="utf-8")


def test_copilot_lists_whole_entries_within_its_character_budget_then_names(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Entries (escaped XML, characters not bytes) up to exactly the budget; from the first that
    does not fit, every later one by name, even one that would fit."""
    ours = many(tmp_path / ".github/skills", 30, "日本語の説明 & <tags> 'quoted'")
    assert copilot.listing(ours, tmp_path).bare == ()  # 30 short entries: well within 15 000
    first_ten = sum(len(copilot.entry(s)) for s in ours[:10])
    assert "&amp; &lt;tags&gt; &apos;quoted&apos;" in copilot.entry(ours[0])
    monkeypatch.setenv("SKILL_CHAR_BUDGET", str(first_ten))
    assert copilot.listing(ours, tmp_path).bare == tuple(s.name for s in ours[10:])
    monkeypatch.setenv("SKILL_CHAR_BUDGET", str(first_ten - 1))
    seen = copilot.listing(ours, tmp_path)
    assert seen.bare == tuple(s.name for s in ours[9:]) and seen.omitted == ()
    assert f"{first_ten - 1:,} characters" in seen.rule


def test_copilot_counts_a_persons_skills_and_lets_theirs_win_a_shared_name(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ours = many(tmp_path / ".agents/skills", 10)
    monkeypatch.setenv("SKILL_CHAR_BUDGET", str(sum(len(copilot.entry(s)) for s in ours)))
    alone = copilot.listing(ours, tmp_path)
    assert alone.bare == alone.omitted == ()  # exactly the budget
    person_skill(tmp_path / ".github/skills", "k003", "Mine, read first.")  # .github/ wins the name
    person_skill(tmp_path / ".claude/skills", "a-hidden", "Kept to explicit use.",
                 "disable-model-invocation: true\n")  # not listed: it takes none of the budget
    seen = copilot.listing(ours, tmp_path)
    assert seen.omitted == ("k003",) and seen.bare == ()  # a shorter entry took its place
    person_skill(tmp_path / ".claude/skills", "a-first", "Ahead of memcli's by name. " * 20)
    assert copilot.listing(ours, tmp_path).bare[-1] == "k009"


def test_pi_and_opencode_list_everything_whole(tmp_path: Path) -> None:
    for dialect in (pi.DIALECT, opencode.DIALECT):
        seen = dialect.listing(many(tmp_path, 500, "x" * 1_024), tmp_path)
        assert seen.shortened == seen.bare == seen.omitted == ()


def test_pi_does_not_load_a_skill_its_folder_git_ignores(tmp_path: Path) -> None:
    """Pi applies a skill folder's `.gitignore`: the one memcli writes when skills are not committed
    hides the skill from it."""
    ignored = [s._replace(files=("SKILL.md", ".gitignore", ".memcli-skill")) for s in many(tmp_path, 3)]
    committed = [s._replace(files=("SKILL.md", ".memcli-skill")) for s in many(tmp_path, 2)]
    assert pi.listing(ignored[:1] + committed, tmp_path).omitted == ("k000",)
