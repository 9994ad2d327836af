"""Formatters: pure functions from findings to text. Nothing else prints findings."""

from __future__ import annotations

import json
from collections.abc import Sequence
from itertools import groupby
from typing import TYPE_CHECKING, TextIO

from memcli import __version__
from memcli.lint.finding import Finding
from memcli.lint.registry import RULES
from memcli.plural import plural

if TYPE_CHECKING:
    from rich.console import Console

FORMATS = ("auto", "text", "json", "github", "sarif")


def summary_line(findings: Sequence[Finding], files: int) -> str:
    errors = sum(f.is_error for f in findings)
    warnings = len(findings) - errors
    if not findings:
        return f"{plural(files, 'file')} checked: no problems"
    return (
        f"{plural(files, 'file')} checked: {plural(errors, 'error')}, {plural(warnings, 'warning')}"
    )


def where(f: Finding) -> str:
    """`path:line:` as the text formats print it; a finding about the whole file (JSON `"line": null`)
    has no line to name, so none is made up."""
    return f"{f.path}:{f.line}:" if f.line is not None else f"{f.path}:"


def render_plain(findings: Sequence[Finding], files: int, out: TextIO) -> None:
    """`render_text` without colour, for pipes, hooks and CI logs: the same lines, and no `rich`
    import on the commit path."""
    for path, group in groupby(findings, key=lambda f: f.path):
        out.write(path + "\n")
        for f in group:
            out.write(f"  {where(f)} {f.severity} {f.code} {f.message}\n")
    out.write(summary_line(findings, files) + "\n")


def render_text(findings: Sequence[Finding], files: int, console: Console) -> None:
    """Human output: grouped per file, `path:line: code message`, one total line."""
    from rich.text import Text  # here: the commit hook's plain output never loads rich

    for path, group in groupby(findings, key=lambda f: f.path):
        console.print(Text(path, style="bold underline"))
        for f in group:
            line = Text("  ")
            line.append(f"{where(f)} ", style="dim")
            line.append(f"{f.severity} ", style="red bold" if f.is_error else "yellow bold")
            line.append(f"{f.code} ", style="cyan")
            line.append(f.message)
            console.print(line, soft_wrap=True, highlight=False)
    style = "red" if any(f.is_error for f in findings) else ("yellow" if findings else "green")
    console.print(Text(summary_line(findings, files), style=style))


def render_json(findings: Sequence[Finding], files: int) -> str:
    errors = sum(f.is_error for f in findings)
    return json.dumps(
        {
            "files": files,
            "errors": errors,
            "warnings": len(findings) - errors,
            "findings": [f.to_dict() for f in findings],
        },
        ensure_ascii=False,
        indent=2,
    )


def _gh_escape(value: str, *, prop: bool = False) -> str:
    value = value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if prop:
        value = value.replace(":", "%3A").replace(",", "%2C")
    return value


def render_github(findings: Sequence[Finding], files: int, prefix: str = "") -> str:
    """GitHub Actions workflow commands (`::error file=...,line=...::message`)."""
    lines = []
    for f in findings:
        level = "error" if f.is_error else "warning"
        file, title = _gh_escape(prefix + f.path, prop=True), _gh_escape(f.code, prop=True)
        props = f"file={file},line={f.line or 1},title={title}"
        lines.append(f"::{level} {props}::{_gh_escape(f.message)}")
    lines.append(summary_line(findings, files))
    return "\n".join(lines)


def render_sarif(findings: Sequence[Finding], files: int) -> str:
    rules = [
        {
            "id": r.code,
            "name": r.alias,
            "shortDescription": {"text": (r.__doc__ or "").strip().splitlines()[0]},
        }
        for r in RULES
    ]
    results = [
        {
            "ruleId": f.code,
            "level": "error" if f.is_error else "warning",
            "message": {"text": f.message},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": f.path},
                        "region": {"startLine": f.line or 1},
                    }
                }
            ],
        }
        for f in findings
    ]
    doc = {
        "version": "2.1.0",
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "runs": [
            {
                "tool": {"driver": {"name": "memcli", "version": __version__, "rules": rules}},
                "results": results,
            }
        ],
    }
    return json.dumps(doc, ensure_ascii=False, indent=2)
