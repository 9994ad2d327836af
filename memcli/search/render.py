"""Output of `memcli search`: JSON for scripts and agents, a rich table for people."""

from __future__ import annotations

import json

from rich.console import Console
from rich.table import Table
from rich.text import Text

from memcli.search.hit import MARK_CLOSE, MARK_OPEN, SearchHit
from memcli.tables import print_table


def render_json(hits: list[SearchHit]) -> str:
    return json.dumps([hit.to_json() for hit in hits], ensure_ascii=False, indent=2)


def _marked(snippet: str) -> Text:
    """The snippet with «marks» turned into bold, so people see the match, not the markers."""
    text = Text()
    rest = snippet
    while MARK_OPEN in rest:
        before, _, tail = rest.partition(MARK_OPEN)
        inner, _, rest = tail.partition(MARK_CLOSE)
        text.append(before)
        text.append(inner, style="bold yellow")
    text.append(rest)
    return text


def render_table(hits: list[SearchHit], console: Console, *, broken: int = 0) -> None:
    if not hits:
        console.print("No matching records.")
    else:
        table = Table(show_lines=True, expand=True)
        table.add_column("#", justify="right", no_wrap=True)
        table.add_column("record", overflow="fold", ratio=2)
        table.add_column("type", no_wrap=True)
        table.add_column("score", justify="right", no_wrap=True)
        table.add_column("description / snippet", ratio=5)
        rows: list[tuple[str, Text, str, str, Text]] = []
        for i, hit in enumerate(hits, 1):
            label = hit.type
            if hit.kind or hit.status:
                label += f"\n{hit.kind or hit.status}"
            if hit.replaced_by:
                label += f"\n→ {hit.replaced_by}"
            about = Text()
            plain = hit.snippet.replace(MARK_OPEN, "").replace(MARK_CLOSE, "")
            if hit.description and not plain.startswith(hit.description.rstrip("…")):
                about.append(hit.description + "\n", style="bold")
            about.append_text(_marked(hit.snippet))
            if hit.stale_anchors:
                about.append("\n⚠ stale anchor: " + "; ".join(hit.stale_anchors), style="red")
            if hit.parse_error:
                about.append(f"\n(not a valid record: {hit.parse_error})", style="red")
            rows.append((str(i), Text(f"{hit.slug}\n{hit.path}"), label, f"{hit.score:.2f}", about))
            table.add_row(*rows[-1])
        print_table(console, table, ("#", "record", "type", "score", "description / snippet"), rows)
    if broken:
        console.print(f"[dim]{broken} file(s) in the index are not valid records; "
                      "they are searched by their text (run `memcli lint`).[/dim]")
