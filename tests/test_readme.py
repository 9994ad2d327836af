"""The README stays true: it names every command, hook id and lint code, and its test command is
the one CI runs."""

from __future__ import annotations

import re

import yaml
from conftest import REPO

from memcli.cli import app
from memcli.lint.registry import RULES

README = (REPO / "README.md").read_text(encoding="utf-8")


def _command_names() -> list[str]:
    return [c.name or c.callback.__name__.replace("_", "-") for c in app.registered_commands]


def test_readme_names_every_command() -> None:
    names = _command_names()
    assert len(names) >= 12
    missing = [n for n in names if f"memcli {n}" not in README]
    assert not missing, f"README does not mention: {missing}"


def test_readme_names_every_hook_id() -> None:
    hooks = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert hooks
    for hook in hooks:
        assert f"id: {hook['id']}" in README


def test_readme_lists_every_lint_code() -> None:
    for rule in RULES:
        row = rf"\| `{re.escape(rule.code)}` \| {rule.alias} \| {rule.severity} \|"
        assert re.search(row, README), rule.code


def test_quickstart_has_two_commands_and_ci_runs_the_test_one() -> None:
    quickstart = README.split("## Quickstart", 1)[1].split("\n## ", 1)[0]
    block = quickstart.split("```sh", 1)[1].split("```", 1)[0]
    commands = [line for line in block.splitlines() if line.strip() and not line.startswith("#")]
    assert len(commands) == 2
    test_command = commands[1].split("&&")[-1].strip()
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert test_command.replace("python ", "python3 ") in ci or test_command in ci


def test_readme_links_resolve() -> None:
    for target in re.findall(r"\]\(((?:docs|hooks|examples|bench)/[^)#]*)\)", README):
        assert (REPO / target).exists(), target


def test_readme_names_every_check_ci_runs() -> None:
    said = README.split("`.ci/run` runs", 1)[1].split("command (b)", 1)[0]
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    for tool in ("ruff", "mypy", "lint-imports"):
        assert tool in ci, tool  # what CI runs ...
        assert f"`{tool}" in said, tool  # ... the README says


MODEL_COMMANDS = ("extract", "import", "consolidate")


def test_readme_says_which_commands_need_a_model() -> None:
    light = README.split("**No model API key needed**", 1)[1].split("\n\n", 1)[0]
    assert all(f"`{name}`" in light for name in MODEL_COMMANDS), light
    for name in MODEL_COMMANDS:
        [row] = [line for line in README.splitlines() if line.startswith(f"| `memcli {name}")]
        assert "model" in row.split("|")[2], row
