"""`memcli metrics`: count new session entries, then print per-record usage or the candidate report."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TextIO

from memcli.commands import open_workspace
from memcli.errors import EXIT_OK, UsageError
from memcli.metrics.api import Metrics, record_json, refresh_metrics
from memcli.metrics.candidates import CandidateReport, candidate_report
from memcli.metrics.scan import ScanSummary
from memcli.plural import plural
from memcli.tables import print_table


def run(
    *,
    candidates: bool = False,
    as_json: bool = False,
    rebuild: bool = False,
    sessions: list[Path] | None = None,
    show_all: bool = False,
    workspace: Path | None = None,
    out: TextIO | None = None,
) -> int:
    ws = open_workspace(workspace)
    out = out or sys.stdout
    for path in sessions or []:
        if not path.exists():
            raise UsageError(f"session file {path} does not exist")
    metrics, summary = refresh_metrics(ws, sessions or None, rebuild=rebuild)
    if candidates:
        report = candidate_report(ws, metrics)
        if as_json:
            out.write(json.dumps(report.to_json_dict(), ensure_ascii=False, indent=2) + "\n")
        else:
            _print_candidates(report, out)
        return EXIT_OK
    if as_json:
        data = metrics.to_json_dict()
        data["scan"] = summary.__dict__
        out.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")
    else:
        _print_table(metrics, summary, out, show_all)
    return EXIT_OK


def _console(out: TextIO):
    from rich.console import Console  # here: --json output never loads rich

    # Off a terminal nothing is wrapped: a long path stays on its line for grep.
    return Console(file=out, highlight=False, soft_wrap=not out.isatty())


def _print_table(metrics: Metrics, summary: ScanSummary, out: TextIO, show_all: bool) -> None:
    from rich.table import Table  # here: --json output never loads rich

    console = _console(out)
    rows = [m for m in metrics.records.values() if show_all or m.count]
    rows.sort(key=lambda m: (-m.rate, m.path))
    counted = sum(m.count for m in metrics.records.values())
    if rows:
        title = f"Explicit invokes per million session tokens (protect at ≥ {metrics.threshold:g})"
        table = Table(title=title)
        for name, justify in (("record", "left"), ("invokes", "right"), ("rate", "right"),
                              ("last use", "left"), ("protected", "center")):
            table.add_column(name, justify=justify)  # type: ignore[arg-type]
        cells = []
        for m in rows:
            item = record_json(m)
            last = (item["last_use"] or "-")[:16].replace("T", " ")
            name = m.path + (f" (← {', '.join(m.merged_from)})" if m.merged_from else "")
            cells.append((name, str(m.count), f"{m.rate:.2f}", last, "yes" if m.protected else "no"))
            table.add_row(*cells[-1])
        print_table(console, table, [str(c.header) for c in table.columns], cells)
    elif metrics.records:
        console.print("No record has been invoked yet (--all lists every record).")
    hidden = len(metrics.records) - len(rows)
    tail = f"; {hidden} records without invokes hidden (--all shows them)" if hidden and rows else ""
    # What this run read and what the table counts differ: a reference to a record that does not
    # exist (any more), or made before the record was created, is read but is not a use of it.
    console.print(f"{plural(metrics.sessions, 'session')}, {metrics.tokens:,} tokens, "
                  f"{plural(counted, 'invoke')} of current records{tail}", markup=False)
    why = (" (those naming no current record, or made before it existed, are not counted)"
           if summary.invokes > counted else "")
    console.print(f"this run read {plural(summary.scanned, 'session file')}: {summary.entries:,} new "
                  f"entries, {plural(summary.invokes, 'reference')} to memory files{why}", markup=False)
    if metrics.sessions == 0:
        console.print("No agent sessions found for this workspace (see `memcli sessions`); pass transcript "
                      "files or folders with --path, or set [sessions] paths in memcli.toml.", markup=False)


def _print_candidates(report: CandidateReport, out: TextIO) -> None:
    console = _console(out)
    if not report.candidates:
        console.print(f"No knowledge candidates ({report.staging_files} staging files read).")
        return
    for c in report.candidates:
        console.print(f"[bold]{c.kind}[/bold]: {c.topic}  ({c.sessions} sessions)", markup=True)
        console.print("  sources: " + ", ".join(f"{s}:{a}-{b}" for s, a, b in c.sources[:12])
                      + (f" (+{len(c.sources) - 12})" if len(c.sources) > 12 else ""), markup=False)
        if c.related:
            console.print("  related: " + ", ".join(c.related), markup=False)
        for ev in c.evidence[:10]:
            if c.kind == "recurring":
                console.print(f"  - {ev['type']} in {ev['origin']}: {ev['title']}", markup=False)
            else:
                line = f"  - {ev['invokes']} invokes, {ev['rate']:.2f} per Mtok (≥ {ev['protect_rate']:g})"
                console.print(line, markup=False)
    if report.staging_skipped:
        console.print(f"{report.staging_skipped} unreadable staging files skipped.")
