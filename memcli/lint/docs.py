"""Rule documentation from the registry: `memcli rules [CODE]` (memcli.commands.rules) and
`docs/rules.md`.

The docstring of each rule class is its documentation (what, why, a passing and a failing
example), so the docs cannot drift from the code: `docs/rules.md` is generated from here
(`python -m memcli.lint.docs --write docs/rules.md`) and a test checks it is up to date.
"""

from __future__ import annotations

import dataclasses
import inspect
import sys
from pathlib import Path

from memcli.config import LintConfig
from memcli.errors import UsageError
from memcli.lint.registry import RULES
from memcli.lint.rules.base import Rule, Scope

SCOPE = {Scope.FILE: "file", Scope.WORKSPACE: "whole workspace", Scope.TOOL: "tool path only"}


def doc_of(rule: Rule) -> str:
    return inspect.cleandoc(type(rule).__doc__ or "")


def what_of(rule: Rule) -> str:
    """The first paragraph of the docstring, on one line, without a leading 'Warning:'."""
    first = " ".join(doc_of(rule).split("\n\n", 1)[0].split())
    first = first.removeprefix("Warning: ").removeprefix("Tool path only: ")
    return first[:1].upper() + first[1:]


def find_rule(name: str) -> Rule:
    for rule in RULES:
        if name in (rule.code, rule.alias) or name.upper() == rule.alias:
            return rule
    raise UsageError(f"no rule {name!r}; `memcli rules` lists the codes")


def codes_table() -> str:
    rows = ["| code | alias | severity | scope | what |", "| --- | --- | --- | --- | --- |"]
    for rule in RULES:
        what = what_of(rule).replace("|", "\\|")
        rows.append(f"| `{rule.code}` | {rule.alias} | {rule.severity} | {SCOPE[rule.scope]} | {what} |")
    return "\n".join(rows)


def render_markdown() -> str:
    parts = [
        "# memcli lint rules",
        "",
        "<!-- Generated from the rule docstrings: python -m memcli.lint.docs --write docs/rules.md -->",
        "",
        "Errors fail `memcli lint` (exit 1); warnings fail it only under `--strict`. Thresholds are",
        "set in `memcli.toml` under `[lint]`. `memcli rules CODE` prints one rule's documentation.",
        "",
        "Scopes: *file* rules check the files linted; *whole workspace* rules always read every",
        "record (so deleting a referenced record is caught even when only other paths are linted);",
        "*tool path only* rules apply when a memory tool proposes a write (`lint_change`).",
        "Records are read through the record store in the state dir (`.memcli/`, or `$MEMCLI_STATE_DIR`;",
        "docs/performance.md), which also keeps per-file results by content hash: an unchanged file is",
        "neither read nor checked again. `memcli lint --no-cache` reads and checks every file itself.",
        "",
        codes_table(),
        "",
    ]
    for rule in RULES:
        parts += [
            f"## `{rule.code}` ({rule.alias}, {rule.severity}, {SCOPE[rule.scope]})",
            "",
            doc_of(rule),
            "",
        ]
    return "\n".join(parts)


def settings_of(rule: Rule) -> list[str]:
    """The `[lint]` thresholds a rule reads (the fields its code names)."""


    source = inspect.getsource(type(rule))
    return [f.name for f in dataclasses.fields(LintConfig) if f".{f.name}" in source]


if __name__ == "__main__":  # python -m memcli.lint.docs [--write PATH]
    text = render_markdown()
    if sys.argv[1:2] == ["--write"] and len(sys.argv) == 3:
        Path(sys.argv[2]).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
