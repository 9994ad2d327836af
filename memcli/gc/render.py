"""Formatters for a GcReport: pure functions (text = rich table, markdown = review PR body, json)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from memcli.gc.model import GcReport
from memcli.plural import plural

if TYPE_CHECKING:
    from rich.console import Console

FORMATS = ("text", "markdown", "json")


def nothing_line(report: GcReport) -> str:
    return f"Nothing to report: {plural(report.records, 'record')} checked, no GC candidates."


def _footer(report: GcReport) -> list[str]:
    notes = []
    if report.skipped:
        broken = ", ".join(report.skipped)
        notes.append(f"{len(report.skipped)} broken records skipped (run `memcli lint`): {broken}")
    if report.drift_note:
        notes.append(f"code drift {report.drift_note}")
    if not report.metrics_available:
        notes.append("no usage metrics: `unused` not checked")
    return notes


def _short(evidence: dict[str, Any]) -> str:
    parts = []
    for key, value in evidence.items():
        if key in ("pairs", "usage") or value is None:
            continue
        parts.append(f"{key}={value}")
    return ", ".join(parts)


def render_text(report: GcReport, console: Console) -> None:
    from rich.table import Table  # here: gc-report --json never loads rich

    from memcli.tables import print_table

    if report.empty:
        console.print(nothing_line(report), highlight=False)
        return
    table = Table(title=f"memcli gc-report — {plural(len(report.candidates), 'candidate')}", show_lines=False)
    for column in ("type", "category", "record", "reason"):
        table.add_column(column, overflow="fold")
    rows = [(c.type, c.category, "\n".join(c.paths), c.reason) for c in report.candidates]
    for row in rows:
        table.add_row(*row)
    print_table(console, table, ("type", "category", "record", "reason"), rows)
    for note in _footer(report):
        console.print(f"note: {note}", highlight=False, style="dim")


def _md_escape(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_markdown(report: GcReport) -> str:
    if report.empty:
        return nothing_line(report)
    counts = {k: v for k, v in report.counts().items() if v}
    lines = [
        "## memcli gc-report",
        "",
        f"{plural(len(report.candidates), 'GC candidate')} in {plural(report.records, 'record')} "
        f"({', '.join(f'{k}: {v}' for k, v in counts.items())}). Generated {report.now.isoformat()}; "
        "nothing was changed. Review each item, then edit, merge or drop the records.",
    ]
    for kind in counts:
        lines += ["", f"### {kind} ({counts[kind]})", ""]
        lines += ["| record | reason | evidence |", "| --- | --- | --- |"]
        for c in report.candidates:
            if c.type == kind:
                records = "<br>".join(f"`{p}`" for p in c.paths)
                lines.append(f"| {records} | {_md_escape(c.reason)} | {_md_escape(_short(c.evidence))} |")
    notes = _footer(report)
    if notes:
        lines += ["", *(f"_Note: {n}._" for n in notes)]
    return "\n".join(lines)


def render_json(report: GcReport) -> str:
    return json.dumps(report.to_json_dict(), ensure_ascii=False, indent=2)
