"""`hooks install | status | uninstall --agent pi`: memcli's extension, a file written whole where Pi
loads a project's extensions, taken back byte for byte; whether `pi config` turned it off, read
from Pi's settings (memcli never writes them)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.cli import exit_code, run

from memcli.agents.pi import wiring
from memcli.agents.targets import CAPTURE, session_start_command

EXTENSION = Path(wiring.__file__).with_name("memcli.ts")


@pytest.fixture
def ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "projects" / "ws"
    (root / "memory").mkdir(parents=True)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg-state"))
    monkeypatch.delenv("PI_CODING_AGENT_DIR", raising=False)
    return root


def tree(root: Path) -> dict[str, bytes | None]:
    return {str(p.relative_to(root)): p.read_bytes() if p.is_file() else None
            for p in sorted(root.rglob("*"))}


def test_the_extension_runs_memclis_hook_commands_and_serves_its_tools() -> None:
    text = EXTENSION.read_text(encoding="utf-8")
    assert text.startswith(wiring.MARKER)
    assert f'"{session_start_command("pi")}"' in text and f'"{CAPTURE}"' in text and '"memcli mcp"' in text
    assert '"SessionEnd"' in text  # the end event the declaration names (memcli/agents/pi/__init__.py)


def test_install_and_uninstall_leave_the_project_as_it_was(ws: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    before = tree(ws)
    code, out, _ = run(capsys, "hooks", "install", "--agent", "pi", "-w", str(ws))
    assert code == 0
    written = ws / ".pi" / "extensions" / "memcli.ts"
    assert written.read_bytes() == EXTENSION.read_bytes()
    assert f"pi: created {written} (backup: " in out
    assert f"pi: start pi in {ws}: it loads a project's .pi/extensions only from the folder it starts" in out
    code, out, _ = run(capsys, "hooks", "status", "--agent", "pi", "--scope", "project", "-w", str(ws))
    assert f"pi           project  installed  memcli extension     {written}" in out
    assert f"pi           project  memcli's extension on in pi (loaded from {written})" in out
    code, out, _ = run(capsys, "hooks", "install", "--agent", "pi", "-w", str(ws))
    assert "pi: nothing to install; already in place" in out
    assert exit_code("hooks", "uninstall", "--agent", "pi", "-w", str(ws)) == 0
    assert tree(ws) == before  # the file, and `.pi/extensions/` and `.pi/` it made, are gone


def test_uninstall_keeps_what_was_in_pis_folder_before(ws: Path) -> None:
    settings = ws / ".pi" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{"sessionDir": ".pi/sessions"}\n', encoding="utf-8")
    before = tree(ws)
    assert exit_code("hooks", "install", "--agent", "pi", "-w", str(ws)) == 0
    assert exit_code("hooks", "uninstall", "--agent", "pi", "-w", str(ws)) == 0
    assert tree(ws) == before


def test_an_edited_extension_is_left_alone_until_uninstall(ws: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    assert exit_code("hooks", "install", "--agent", "pi", "-w", str(ws)) == 0
    written = ws / ".pi" / "extensions" / "memcli.ts"
    edited = written.read_text(encoding="utf-8").replace("TOOLS_WAIT_MS = 10_000", "TOOLS_WAIT_MS = 20_000")
    written.write_text(edited, encoding="utf-8")
    capsys.readouterr()
    code, out, _ = run(capsys, "hooks", "status", "--agent", "pi", "--scope", "project", "-w", str(ws))
    assert "modified   memcli extension" in out
    assert exit_code("hooks", "install", "--agent", "pi", "-w", str(ws)) == 0
    assert written.read_text(encoding="utf-8") == edited
    code, out, _ = run(capsys, "hooks", "uninstall", "--agent", "pi", "-w", str(ws))
    assert code == 0 and not written.exists() and "backup: " in out  # still memcli's: its first line says so
    backup = Path(out.split("backup: ")[1].split(")")[0])
    assert backup.read_text(encoding="utf-8") == edited


def test_a_file_of_someone_elses_at_that_path_is_never_touched(ws: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    theirs = ws / ".pi" / "extensions" / "memcli.ts"
    theirs.parent.mkdir(parents=True)
    theirs.write_text("// my own memcli glue\nexport default function () {}\n", encoding="utf-8")
    before = tree(ws)
    code, out, _ = run(capsys, "hooks", "status", "--agent", "pi", "--scope", "project", "-w", str(ws))
    assert "modified   memcli extension" in out
    assert exit_code("hooks", "install", "--agent", "pi", "-w", str(ws)) == 0
    assert exit_code("hooks", "uninstall", "--agent", "pi", "-w", str(ws)) == 0
    assert tree(ws) == before


@pytest.mark.parametrize("patterns, off", [
    ([], False),
    (["-extensions/memcli.ts"], True),  # what `pi config` writes when you turn it off
    (["-extensions/memcli.ts", "+extensions/memcli.ts"], True),  # `-` wins over `+`, as in Pi
    (["+extensions/memcli.ts"], False),
    (["!extensions/*.ts"], True),
    (["!extensions/*.ts", "+extensions/memcli.ts"], False),
    (["!other.ts", "-extensions/other.ts", "../somewhere/else.ts"], False),
])
def test_pi_config_turning_the_extension_off_shows(ws: Path, capsys: pytest.CaptureFixture[str],
                                                   patterns: list[str], off: bool) -> None:
    assert exit_code("hooks", "install", "--agent", "pi", "-w", str(ws)) == 0
    (ws / ".pi" / "settings.json").write_text(json.dumps({"extensions": patterns}), encoding="utf-8")
    capsys.readouterr()
    code, out, _ = run(capsys, "hooks", "status", "--agent", "pi", "--scope", "project", "-w", str(ws))
    assert ("memcli's extension turned off in pi config" in out) is off
    code, out, _ = run(capsys, "hooks", "install", "--agent", "pi", "-w", str(ws))
    assert ("pi: memcli's extension turned off in pi config" in out) is off


def test_user_scope_goes_where_pi_keeps_its_own(ws: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    assert exit_code("hooks", "install", "--agent", "pi", "--scope", "user", "-w", str(ws)) == 0
    default = Path.home() / ".pi" / "agent" / "extensions" / "memcli.ts"
    assert default.read_bytes() == EXTENSION.read_bytes()
    assert "start pi in" not in capsys.readouterr().out  # every folder loads the user's extensions
    assert exit_code("hooks", "install", "--agent", "pi", "-w", str(ws)) == 0
    code, out, _ = run(capsys, "hooks", "status", "--agent", "pi", "-w", str(ws))
    assert "warning: pi has memcli's hooks at both project and user scope" in out
    assert exit_code("hooks", "uninstall", "--agent", "pi", "--scope", "user", "-w", str(ws)) == 0
    assert not default.exists() and default.parent.parent.is_dir()  # Pi's own folder stays
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path / "pi-dir"))
    assert exit_code("hooks", "install", "--agent", "pi", "--scope", "user", "-w", str(ws)) == 0
    assert (tmp_path / "pi-dir" / "extensions" / "memcli.ts").is_file()
