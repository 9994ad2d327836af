"""The resident context for an agent leaves out the knowledge it already lists whole as skills."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from skills.kit import knowledge, run_sync
from support.cli import run


def index(capsys: pytest.CaptureFixture[str], root: Path, *agent: str) -> list[str]:
    code, out, _ = run(capsys, "context", "--json", "-w", str(root), *agent)
    assert code == 0
    return [e["slug"] for e in json.loads(out)["knowledge"]]


def test_knowledge_an_agent_lists_as_skills_is_not_repeated(
        ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    knowledge(ws, "alpha", "Alpha fact.")
    knowledge(ws, "beta", "Beta fact.")
    assert index(capsys, ws, "--agent", "claude-code") == ["alpha", "beta"]  # nothing synced yet
    run_sync(ws, "claude-code")
    assert index(capsys, ws, "--agent", "claude-code") == []
    assert index(capsys, ws, "--agent", "codex") == ["alpha", "beta"]  # not synced for Codex
    assert index(capsys, ws) == ["alpha", "beta"]  # `memcli context` for no agent in particular
    code, out, _ = run(capsys, "context", "-w", str(ws), "--agent", "claude-code")
    assert "all 2 knowledge entries are your skills, not repeated here" in out
    code, _, err = run(capsys, "context", "-w", str(ws), "--agent", "claude")
    assert code == 2 and "--agent 'claude': choose one of claude-code, codex, gemini, copilot" in err


def test_a_record_changed_since_the_sync_is_listed_again(
        ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = knowledge(ws, "alpha", "Alpha fact.")
    knowledge(ws, "beta", "Beta fact.")
    run_sync(ws, "claude-code")
    record.write_text(record.read_text().replace("Alpha fact.", "Alpha fact, revised."), encoding="utf-8")
    (ws / ".claude/skills/beta/SKILL.md").unlink()
    assert index(capsys, ws, "--agent", "claude-code") == ["alpha", "beta"]


def test_the_session_start_hook_gives_each_agent_its_own_context(ws: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    knowledge(ws, "alpha", "Alpha fact about pelicans.")
    run_sync(ws, "gemini")
    code, out, _ = run(capsys, "hooks", "session-start", "--agent", "gemini", "-w", str(ws))
    assert code == 0 and out == ""  # nothing left to say: no summary, its one entry is a skill
    code, out, _ = run(capsys, "hooks", "session-start", "--agent", "claude-code", "-w", str(ws))
    assert "- alpha — Alpha fact about pelicans." in out


def test_what_codex_shortens_stays_in_its_index(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Codex caps its listing at 2% of the model's window: over it, long descriptions are cut, so
    those stay in memcli's index; a description short enough to survive is not repeated."""
    knowledge(ws, "a-short", "Short.")
    knowledge(ws, "b-long", "B " + "x" * 300)
    knowledge(ws, "c-long", "C " + "y" * 300)
    (ws / ".codex").mkdir()
    (ws / ".codex/config.toml").write_text("model_context_window = 5000\n", encoding="utf-8")  # 100 tokens
    result = run_sync(ws, "codex")
    assert result.listings["codex"]["shortened"] == ["b-long", "c-long"]
    assert index(capsys, ws, "--agent", "codex") == ["b-long", "c-long"]


def test_what_pi_cannot_load_stays_in_its_index(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Skills not committed carry a `.gitignore`, which Pi honours: it lists none of them, so its
    resident context keeps them all; committed, they are its skills and leave the index."""
    knowledge(ws, "alpha", "Alpha fact.")
    (ws / "memcli.toml").write_text("[skills]\ncommit = false\n", encoding="utf-8")
    assert run_sync(ws, "pi").listings["pi"]["omitted"] == ["alpha"]
    assert index(capsys, ws, "--agent", "pi") == ["alpha"]
    (ws / "memcli.toml").write_text("[skills]\ncommit = true\n", encoding="utf-8")
    assert run_sync(ws, "pi").listings["pi"]["omitted"] == []
    assert index(capsys, ws, "--agent", "pi") == []
