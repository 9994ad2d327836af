"""Exit codes at the one error boundary: 0 clean, 1 findings, 2 usage/config, 3 a bug (one line on
stderr, the traceback in a log). A bad record is never 2 or 3."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from memcli.cli import main

GOOD = """---
created_at: 2026-04-27T10:00:00+09:00
updated_at: 2026-04-27T10:00:00+09:00
sources:
  - session_id: s1
    range: [0, 1]
---
Body.
"""


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "memory/requests").mkdir(parents=True)
    (root / "memory/requests/ok.md").write_text(GOOD, encoding="utf-8")
    return root


def _main(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(list(argv))
    out, err = capsys.readouterr()
    return exit_info.value.code, out, err


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["lint", "--format", "xml"], "unknown format 'xml'"),
        (["lint", "--no-such-option"], "No such option"),
        (["no-such-command"], "No such command"),
        (["lint", "memory/requests/missing.md"], "no such file"),
    ],
)
def test_usage_errors_exit_2(ws: Path, capsys, monkeypatch, argv: list[str], needle: str) -> None:
    monkeypatch.chdir(ws)
    code, _, err = _main(capsys, *argv)
    assert code == 2
    assert needle in err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    "config",
    ["[lint\nbroken", "[lint]\nbody_max_chars = 'big'\n", "[lint]\nno_such_threshold = 1\n"],
    ids=["not-toml", "wrong-type", "unknown-key"],
)
def test_broken_config_exits_2(ws: Path, capsys, config: str) -> None:
    (ws / "memcli.toml").write_text(config, encoding="utf-8")
    code, out, err = _main(capsys, "lint", "-w", str(ws))
    assert code == 2
    assert err.startswith("Error: ") and "memcli.toml" in err and len(err.strip().splitlines()) == 1


def test_outside_the_workspace_exits_2(ws: Path, tmp_path: Path, capsys) -> None:
    other = tmp_path / "elsewhere.md"
    other.write_text(GOOD, encoding="utf-8")
    code, _, err = _main(capsys, "lint", "-w", str(ws), str(other))
    assert code == 2 and "outside the workspace" in err


def test_no_workspace_exits_2(tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    code, _, err = _main(capsys, "lint")
    assert code == 2 and "memcli init" in err


def test_clean_and_findings_exit_0_and_1(ws: Path, capsys) -> None:
    assert _main(capsys, "lint", "-w", str(ws))[0] == 0
    (ws / "memory/requests/ok.md").write_text(
        GOOD.replace("range: [0, 1]", "range: [1, 0]"), encoding="utf-8"
    )
    assert _main(capsys, "lint", "-w", str(ws))[0] == 1


def test_an_unexpected_exception_exits_3_with_one_line_and_a_log(ws: Path, capsys, monkeypatch) -> None:
    # A bug deep in the Linter (simulated by breaking the real lint function the command calls):
    # the boundary must not turn it into a user error, and must keep the traceback.
    import memcli.commands.lint

    def broken(*args, **kwargs):
        raise KeyError("boom")

    monkeypatch.setattr(memcli.commands.lint, "lint", broken)
    code, out, err = _main(capsys, "lint", "-w", str(ws))
    assert code == 3
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "internal error" in lines[0] and "KeyError" in lines[0]
    logs = list((Path(os.environ["MEMCLI_STATE_DIR"]) / "logs").glob("crash-*.log"))
    assert len(logs) == 1
    text = logs[0].read_text(encoding="utf-8")
    assert "Traceback" in text and "in broken" in text and "memcli 0.1" in text and "Python 3." in text


def test_help_and_version_exit_0_in_a_real_process(tmp_path: Path) -> None:
    for argv in (["--help"], ["lint", "--help"], ["--version"]):
        proc = subprocess.run(
            [sys.executable, "-m", "memcli", *argv], capture_output=True, text=True, timeout=60
        )
        assert proc.returncode == 0, (argv, proc.stderr)
        assert proc.stdout


def test_lint_pointed_at_a_folder_without_memory_fails_as_without_w(tmp_path: Path, capsys,
                                                                  monkeypatch) -> None:
    """A CI step with the wrong -w must not go green on '0 files checked'."""
    wrong = tmp_path / "not-a-workspace"
    wrong.mkdir()
    monkeypatch.chdir(wrong)
    plain = _main(capsys, "lint")
    pointed = _main(capsys, "lint", "-w", str(wrong))
    for code, out, err in (plain, pointed):
        assert code == 2 and out == "" and err.startswith("Error: ") and err.count("\n") == 1
    assert "memcli init" in pointed[2] and str(wrong) in pointed[2]
    (wrong / "memcli.toml").write_text("")  # a config alone makes it a (still empty) workspace
    assert _main(capsys, "lint", "-w", str(wrong))[0] == 0


@pytest.mark.parametrize("where", ["memcli.toml", "pyproject.toml"])
def test_config_errors_list_every_unknown_key_with_its_path_and_a_suggestion(ws: Path, capsys,
                                                                             where: str) -> None:
    prefix = "tool.memcli." if where == "pyproject.toml" else ""
    config = ("[lint]\nsumary_max_chars = 3\nbody_max_chars = \"many\"\n[extract]\nconcurency = 1\n"
              "wibble = 2\n[extrct]\nx = 1\n")
    if where == "pyproject.toml":
        config = config.replace("[", "[tool.memcli.")
    (ws / where).write_text(config, encoding="utf-8")
    code, out, err = _main(capsys, "lint", "-w", str(ws))
    assert code == 2 and out == "" and err.startswith("Error: ") and err.count("\n") == 1
    assert f"unknown key {prefix}lint.sumary_max_chars (did you mean {prefix}lint.summary_max_chars?)" in err
    assert f"unknown key {prefix}extract.concurency (did you mean {prefix}extract.concurrency?)" in err
    assert f"unknown key {prefix}extract.wibble;" in err
    assert f"unknown key {prefix}extrct (did you mean {prefix}extract?)" in err
    assert f"{prefix}lint.body_max_chars: Input should be a valid integer" in err


class _Stopped(Exception):
    pass


@pytest.fixture
def usr1():  # type: ignore[no-untyped-def]
    """SIGUSR1's handler as the test found it, put back after (the tests below change it)."""
    import signal

    before = signal.getsignal(signal.SIGUSR1)
    yield signal.SIGUSR1
    signal.signal(signal.SIGUSR1, before)


def test_the_first_signal_raises_and_later_ones_are_ignored(usr1: int) -> None:
    """What Ctrl-C (extract, import) and SIGTERM (consolidate, extract, import) get: the first
    raises in the main thread, the second cannot break the way out, and a run without the signal
    puts the handler before back."""
    import signal

    from memcli.boundary import first_signal_raises

    def mine(signum: int, frame: object) -> None:
        raise AssertionError("the handler before was called")

    signal.signal(usr1, mine)
    with first_signal_raises(usr1, _Stopped):
        assert signal.getsignal(usr1) is not mine
    assert signal.getsignal(usr1) is mine
    with pytest.raises(_Stopped) as stopped, first_signal_raises(usr1, _Stopped):
        try:
            os.kill(os.getpid(), usr1)
        finally:
            os.kill(os.getpid(), usr1)  # while it stops: ignored, not raised again
    assert stopped.value.__context__ is None and signal.getsignal(usr1) == signal.SIG_IGN


def test_a_handler_set_outside_python_is_put_back_as_the_default(usr1: int,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    import signal

    from memcli import boundary

    real = signal.getsignal
    monkeypatch.setattr(signal, "getsignal", lambda signum: None if signum == usr1 else real(signum))
    with boundary.first_signal_raises(usr1, _Stopped):
        pass
    assert real(usr1) == signal.SIG_DFL
