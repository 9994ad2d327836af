"""`memcli gc-report`: print the GC candidates; never changes a file."""

from __future__ import annotations

import gc
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from memcli.commands import json_format, open_workspace
from memcli.consolidate import branches, inputs
from memcli.errors import EXIT_OK, UsageError
from memcli.gc.facts import FactsCache
from memcli.gc.render import FORMATS, render_json, render_markdown, render_text
from memcli.gc.report import build_report
from memcli.gc.usage import usage_from_metrics
from memcli.lint.cache import ResultCache
from memcli.metrics import load_metrics
from memcli.store import open_store
from memcli.workspace import Workspace

if TYPE_CHECKING:
    from rich.console import Console


def run(*, fmt: str = "text", as_json: bool = False, workspace: Path | None = None) -> int:
    return report(open_workspace(workspace), fmt=json_format(fmt, as_json, "text"))


def report(workspace: Workspace, *, fmt: str = "text", console: Console | None = None) -> int:
    """Build the GC report of `workspace` and print it in `fmt`."""
    if fmt not in FORMATS:
        raise UsageError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    # Usage figures saved by the last `memcli metrics` (None until it has counted a session: then no
    # `unused` candidates, as absence of figures is not evidence of disuse).
    metrics = load_metrics(workspace)
    # The record store: records it keeps are not parsed again; with it come the Linter's result
    # cache (the bloat warnings of unchanged records; this run's results serve the next lint) and
    # what the GC checks need from each record, under the same content keys.
    store = open_store(workspace)
    # Thousands of parsed records are millions of small acyclic objects that reference counting
    # frees; the cyclic GC would only keep rescanning them.
    collecting = gc.isenabled()
    gc.disable()
    try:
        cache = facts_cache = None
        if store is not None:
            store.refresh()
            cache, facts_cache = ResultCache(store, workspace.config.lint), FactsCache(store)
        found = build_report(
            workspace,
            metrics=usage_from_metrics(metrics) if metrics is not None else None,
            cache=cache,
            facts_cache=facts_cache,
        )
        if cache is not None and facts_cache is not None:
            cache.save(whole=True)
            facts_cache.save()
    finally:
        if collecting:
            gc.enable()
        if store is not None:
            store.close()
    leaving = _leaving(workspace)
    if fmt == "json":
        data = {**json.loads(render_json(found)), "staging_leaving": [g.to_json() for g in leaving]}
        print(json.dumps(data, ensure_ascii=False, indent=2))
    elif fmt == "markdown":
        print(render_markdown(found))
        lines = _leaving_lines(workspace, leaving)
        if lines:
            print("\n### staging of deleted branches\n\n" + "\n".join(f"- {line}" for line in lines))
    else:
        from rich.console import Console  # here: JSON and Markdown output never load rich

        render_text(found, console or Console(file=sys.stdout, highlight=False))
        for line in _leaving_lines(workspace, leaving):
            print(f"staging: {line}")
    return EXIT_OK


def _leaving(workspace: Workspace) -> list[branches.Group]:
    """Staging items of branches deleted without being merged, which go after
    memory.branch_staging_days (read only: gc-report changes nothing, not even what memcli saw)."""
    routing = branches.route(workspace, inputs.load_staging(workspace).entries, observe=False)
    return [g for g in routing.groups if g.state in (branches.GONE, branches.EXPIRED)]


def _leaving_lines(workspace: Workspace, leaving: list[branches.Group]) -> list[str]:
    return [branches.describe(g, workspace.config.memory.branch_staging_days) for g in leaving]
