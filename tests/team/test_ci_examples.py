"""The CI examples call only commands and options memcli has (a renamed flag must fail here)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
import typer.main
import yaml

from memcli.cli import app

HOOKS = Path(__file__).resolve().parents[2] / "hooks"
EXAMPLES = ["github-workflow-nightly.yml", "gitlab-ci-nightly.yml"]


def _shell_lines(node: object, shell: bool = False) -> list[str]:
    """The lines of every `run:` (GitHub) and `script:` (GitLab) value."""
    if isinstance(node, str):
        return node.splitlines() if shell else []
    if isinstance(node, dict):
        return [line for key, value in node.items() for line in _shell_lines(value, shell or key in
                                                                               ("run", "script"))]
    if isinstance(node, list):
        return [line for value in node for line in _shell_lines(value, shell)]
    return []


def _calls(name: str) -> list[list[str]]:
    lines = _shell_lines(yaml.safe_load((HOOKS / name).read_text(encoding="utf-8")))
    calls = []
    for line in lines:
        for part in re.split(r"\|\||\||&&|;", line):
            if part.strip().startswith("memcli "):
                calls.append(shlex.split(part.strip(), comments=True)[1:])
    return calls


@pytest.mark.parametrize("name", EXAMPLES)
def test_every_memcli_call_exists(name: str) -> None:
    root = typer.main.get_command(app)
    calls = _calls(name)
    assert {"staging", "consolidate", "init"} <= {c[0] for c in calls}
    for words in calls:
        command, rest = root, list(words)
        while rest and hasattr(command, "commands") and rest[0] in command.commands:
            command = command.commands[rest.pop(0)]
        assert not hasattr(command, "commands"), f"{name}: `memcli {' '.join(words)}` names no command"
        known = {opt for param in command.params for opt in param.opts}
        for word in rest:
            if word.startswith("-"):
                assert word in known, f"{name}: `memcli {' '.join(words)}`: unknown option {word}"
