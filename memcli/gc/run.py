"""`memcli gc-report`: print the GC candidates; never changes a file."""

from __future__ import annotations

import gc
import sys
from typing import TYPE_CHECKING

from memcli.errors import EXIT_OK, UsageError
from memcli.gc.facts import FactsCache
from memcli.gc.render import FORMATS, render_json, render_markdown, render_text
from memcli.gc.report import build_report
from memcli.workspace import Workspace

if TYPE_CHECKING:
    from rich.console import Console


def run(workspace: Workspace, *, fmt: str = "text", console: Console | None = None) -> int:
    if fmt not in FORMATS:
        raise UsageError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    # Usage figures saved by the last `memcli metrics` (None until it has counted a session: then no
    # `unused` candidates, as absence of figures is not evidence of disuse).
    from memcli.gc.usage import usage_from_metrics
    from memcli.lint.cache import ResultCache
    from memcli.metrics import load_metrics
    from memcli.store import open_store

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
        report = build_report(
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
    if fmt == "json":
        print(render_json(report))
    elif fmt == "markdown":
        print(render_markdown(report))
    else:
        from rich.console import Console

        render_text(report, console or Console(file=sys.stdout, highlight=False))
    return EXIT_OK
