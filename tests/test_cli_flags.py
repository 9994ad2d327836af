"""One way to say each thing: the same flag means the same on every command (issue 13 §3)."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest
import typer

from memcli.cli import app, main

# merge-driver is run by git with four file arguments (%O %A %B %P); it never looks for a workspace.
NO_WORKSPACE = {"merge-driver"}
JSON_COMMANDS = ("lint", "sessions", "source", "extract", "consolidate", "status", "search", "context",
                 "gc-report", "metrics", "eval")
TRANSCRIPT_COMMANDS = ("sessions", "extract", "source", "metrics", "eval")


def _commands() -> dict[str, object]:
    return dict(typer.main.get_command(app).commands)  # type: ignore[attr-defined]


def _options(name: str) -> set[str]:
    return {opt for p in _commands()[name].params for opt in (*p.opts, *p.secondary_opts)}  # type: ignore[attr-defined]


def _main(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(list(argv))
    out, err = capsys.readouterr()
    return int(exit_info.value.code or 0), out, err


def _leaves() -> dict[str, object]:
    """Every command, with a group's (`hooks`) subcommands in place of the group."""
    out: dict[str, object] = {}
    for name, command in _commands().items():
        sub = getattr(command, "commands", None)
        out.update({f"{name} {n}": c for n, c in sub.items()} if sub else {name: command})
    return out


def test_every_command_takes_w() -> None:
    def options(command: object) -> set[str]:
        return {opt for p in command.params for opt in (*p.opts, *p.secondary_opts)}  # type: ignore[attr-defined]

    missing = [n for n, c in _leaves().items()
               if n not in NO_WORKSPACE and not {"-w", "--workspace"} <= options(c)]
    assert missing == [], f"commands without -w/--workspace: {missing}"


@pytest.mark.parametrize("name", JSON_COMMANDS)
def test_every_command_with_json_output_takes_json(name: str) -> None:
    assert "--json" in _options(name)


@pytest.mark.parametrize("name", ["extract", "consolidate"])
def test_both_model_commands_take_m(name: str) -> None:
    assert {"-m", "--model"} <= _options(name)


@pytest.mark.parametrize("name", TRANSCRIPT_COMMANDS)
def test_transcripts_are_passed_with_path_everywhere(name: str) -> None:
    assert "--path" in _options(name)


@pytest.mark.parametrize(("argv", "kind", "other"), [
    (["lint"], dict, "sarif"), (["context"], dict, None), (["gc-report"], dict, "markdown")])
def test_json_is_format_json(example_ws: Path, capsys, argv: list[str], kind: type,
                             other: str | None) -> None:
    code, out, _ = _main(capsys, *argv, "--json", "-w", str(example_ws))
    short = json.loads(out)
    long_code, long_out, _ = _main(capsys, *argv, "--format", "json", "-w", str(example_ws))
    long = json.loads(long_out)
    assert code == long_code and isinstance(short, kind) and type(short) is type(long)
    assert (sorted(short) == sorted(long)) if isinstance(short, dict) else short == long
    if other:  # a format that is not JSON: the two flags contradict each other
        code, _, err = _main(capsys, *argv, "--json", "--format", other, "-w", str(example_ws))
        assert code == 2 and "--json and --format" in err


def test_since_takes_the_same_forms_in_sessions_and_extract(example_ws: Path, tmp_path: Path, capsys) -> None:
    session = tmp_path / "s.jsonl"
    row = {"role": "user", "content": "hi", "timestamp": "2026-01-01T00:00:00Z"}
    session.write_text(json.dumps(row) + "\n")
    for since in ("7d", "12h", "2025-09-01", "2025-09-01T10:00"):
        code, _, err = _main(capsys, "extract", "--dry-run", "--since", since, "-w", str(example_ws),
                             "--path", str(session))
        assert code == 0, err
        code, _, err = _main(capsys, "sessions", "--since", since, "--path", str(session))
        assert code == 0, err
    for command in ("extract", "sessions"):
        code, _, err = _main(capsys, command, "--since", "yesterday", "-w", str(example_ws))
        assert code == 2 and "30m, 12h, 7d, 2w" in err


def test_rules_takes_w_and_shows_that_workspace_s_thresholds(tmp_path: Path, capsys) -> None:
    (tmp_path / "memory").mkdir()
    (tmp_path / "memcli.toml").write_text("[lint]\nbody_max_chars = 4321\n", encoding="utf-8")
    code, out, _ = _main(capsys, "rules", "too-large", "-w", str(tmp_path))
    assert code == 0 and "body_max_chars = 4321" in out
    code, _, err = _main(capsys, "rules", "too-large", "-w", str(tmp_path / "nowhere"))
    assert code == 2 and err.startswith("Error: ")


def test_tables_off_a_terminal_are_plain_lines_with_whole_paths(example_ws: Path, capsys) -> None:
    code, out, _ = _main(capsys, "search", "sqlite", "-w", str(example_ws))
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split("\t") == ["#", "record", "type", "score", "description / snippet"]
    rows = [line.split("\t") for line in lines[1:] if line[:1].isdigit()]
    assert rows and all(len(r) == 5 for r in rows)
    for row in rows:
        path = row[1].split(" · ")[1]
        assert (example_ws / path).is_file()  # the whole path, on the row's one line


def test_sessions_with_none_found_points_to_what_a_pip_install_ships(tmp_path: Path, capsys,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "memory").mkdir()
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    code, out, _ = _main(capsys, "sessions", "-w", str(tmp_path))
    assert code == 0 and "No sessions found" in out, out
    assert "docs/" not in out and "--path" in out


def test_source_of_a_missing_document_points_to_what_a_pip_install_ships(
        tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "memory").mkdir()
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    code, _, err = _main(capsys, "source", "claude-md/CLAUDE.md:1-2", "-w", str(tmp_path))
    assert code != 0 and "no document 'claude-md/CLAUDE.md'" in err, err
    assert "docs/" not in err and "memcli import --dry-run" in err, err


# Strings that name a docs page on purpose: the generated docs/rules.md's own header and text, and
# an example of a project's doc path given to the model.
NAMES_DOCS = {"lint/docs.py", "tools/docs.py"}


def test_no_message_points_to_a_docs_page_a_pip_install_does_not_ship() -> None:
    package = Path(__file__).resolve().parents[1] / "memcli"
    found = []
    for path in sorted(package.rglob("*.py")):
        rel = path.relative_to(package).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                      if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
                      and node.body and isinstance(node.body[0], ast.Expr)
                      and isinstance(node.body[0].value, ast.Constant)}
        for node in ast.walk(tree):
            if (isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
                    and re.search(r"\bdocs/[\w-]+\.md", node.value) and rel not in NAMES_DOCS):
                found.append(f"{rel}:{node.lineno}: {node.value[:80]}")
    assert found == [], found
