"""`memcli gc-report`: print the GC candidates; never changes a file."""

from __future__ import annotations

import gc
import sys

from rich.console import Console

from memcli.errors import EXIT_OK, UsageError
from memcli.gc.facts import FactsCache
from memcli.gc.render import FORMATS, render_json, render_markdown, render_text
from memcli.gc.report import build_report
from memcli.workspace import Workspace


def run(workspace: Workspace, *, fmt: str = "text", console: Console | None = None) -> int:
    if fmt not in FORMATS:
        raise UsageError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    # Usage figures saved by the last `memcli metrics` (None until it has counted a session: then no
    # `unused` candidates, as absence of figures is not evidence of disuse).
    from memcli.gc.usage import usage_from_metrics
    from memcli.lint.cache import ResultCache
    from memcli.metrics import load_metrics

    metrics = load_metrics(workspace)
    # The Linter's result cache (as `memcli lint` keeps it in the state dir): the bloat warnings of
    # unchanged records come from it, and this run's results are saved for the next lint or report.
    cache = ResultCache.in_state_dir(workspace.state_dir, workspace.config.lint)
    # What the GC checks need from each record, under the same content keys: an unchanged record
    # is then neither read nor parsed.
    facts_cache = FactsCache.in_state_dir(workspace.state_dir)
    # Thousands of parsed records are millions of small acyclic objects that reference counting
    # frees; the cyclic GC would only keep rescanning them.
    collecting = gc.isenabled()
    gc.disable()
    try:
        report = build_report(
            workspace,
            metrics=usage_from_metrics(metrics) if metrics is not None else None,
            cache=cache,
            facts_cache=facts_cache,
        )
    finally:
        if collecting:
            gc.enable()
    cache.save(whole=True)
    facts_cache.save()
    if fmt == "json":
        print(render_json(report))
    elif fmt == "markdown":
        print(render_markdown(report))
    else:
        render_text(report, console or Console(file=sys.stdout, highlight=False))
    return EXIT_OK
