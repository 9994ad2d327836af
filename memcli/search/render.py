"""Output of `memcli search`: JSON for scripts and agents, a rich table on a terminal, plain lines
(one per hit, cells joined by tabs, as memcli.tables prints any table off a terminal) elsewhere.

An agent's shell tool is not a terminal, so the plain lines are the common case: they are built
without importing rich, from the same cells the table is made of, so they are the bytes the
table's plain form would be.
"""

from __future__ import annotations

import json
import os
import sys
from typing import TYPE_CHECKING, TextIO

from memcli.search.hit import MARK_CLOSE, MARK_OPEN, SearchHit, hits_json
from memcli.tables import plain_cell, print_table

if TYPE_CHECKING:
    from rich.console import Console  # here: the plain lines (an agent's shell) never load rich
    from rich.text import Text

HEADERS = ("#", "record", "type", "score", "description / snippet")
NO_HITS = "No matching records."
# What rich's Text drops from any text it is given (bell, backspace, \v, \f, \r).
_CONTROL = dict.fromkeys((7, 8, 11, 12, 13))

Pieces = list[tuple[str, "str | None"]]  # (text, rich style) parts of one cell


def render_json(hits: list[SearchHit]) -> str:
    return json.dumps(hits_json(hits), ensure_ascii=False, indent=2)


def _marked(snippet: str) -> Pieces:
    """The snippet with «marks» turned into bold, so people see the match, not the markers."""
    pieces: Pieces = []
    rest = snippet
    while MARK_OPEN in rest:
        before, _, tail = rest.partition(MARK_OPEN)
        inner, _, rest = tail.partition(MARK_CLOSE)
        pieces += [(before, None), (inner, "bold yellow")]
    pieces.append((rest, None))
    return pieces


def _cells(i: int, hit: SearchHit) -> tuple[str, str, str, str, Pieces]:
    """(#, record, type, score, description / snippet pieces) of one hit."""
    label = hit.type
    if hit.kind or hit.status:
        label += f"\n{hit.kind or hit.status}"
    if hit.replaced_by:
        label += f"\n→ {hit.replaced_by}"
    about: Pieces = []
    plain = hit.snippet.replace(MARK_OPEN, "").replace(MARK_CLOSE, "")
    if hit.description and not plain.startswith(hit.description.rstrip("…")):
        about.append((hit.description + "\n", "bold"))
    about += _marked(hit.snippet)
    if hit.stale_anchors:
        about.append(("\n⚠ stale anchor: " + "; ".join(hit.stale_anchors), "red"))
    if hit.parse_error:
        about.append((f"\n(not a valid record: {hit.parse_error})", "red"))
    return str(i), f"{hit.slug}\n{hit.path}", label, f"{hit.score:.2f}", about


def is_terminal(out: TextIO) -> bool:
    """Whether rich would treat `out` as a terminal (its TTY_COMPATIBLE / FORCE_COLOR / isatty
    rules), so the plain lines are printed exactly where rich would print them."""
    compatible = os.environ.get("TTY_COMPATIBLE", "")
    if compatible in ("0", "1"):
        return compatible == "1"
    force = os.environ.get("FORCE_COLOR")
    if force is not None:
        return force != ""
    try:
        return out.isatty()
    except (AttributeError, ValueError):
        return False


def render_lines(hits: list[SearchHit], out: TextIO, *, broken: int = 0) -> None:
    """The plain form of `render_table`, off a terminal, without rich."""
    if not hits:
        out.write(NO_HITS + "\n")
    else:
        lines = ["\t".join(HEADERS)]
        for i, hit in enumerate(hits, 1):
            num, record, label, score, about = _cells(i, hit)
            text = "".join(piece for piece, _ in about)
            cells = (num, record.translate(_CONTROL), label, score, text.translate(_CONTROL))
            lines.append("\t".join(plain_cell(c) for c in cells))
        out.write("\n".join(lines) + "\n")
    if broken:  # a sentence rich wraps at its width: rich prints it
        from rich.console import Console  # here: the plain path (an agent's shell) imports no rich

        _broken(Console(file=out, highlight=False) if out is not sys.stdout else Console(), broken)


def _broken(console: Console, broken: int) -> None:
    console.print(f"[dim]{broken} file(s) in the index are not valid records; "
                  "they are searched by their text (run `memcli lint`).[/dim]")


def render_table(hits: list[SearchHit], console: Console, *, broken: int = 0) -> None:
    from rich.table import Table  # here: the plain lines (an agent's shell) never load rich
    from rich.text import Text


    if not hits:
        console.print(NO_HITS)
    else:
        table = Table(show_lines=True, expand=True)
        table.add_column("#", justify="right", no_wrap=True)
        table.add_column("record", overflow="fold", ratio=2)
        table.add_column("type", no_wrap=True)
        table.add_column("score", justify="right", no_wrap=True)
        table.add_column("description / snippet", ratio=5)
        rows: list[tuple[str, Text, str, str, Text]] = []
        for i, hit in enumerate(hits, 1):
            num, record, label, score, pieces = _cells(i, hit)
            about = Text()
            for piece, style in pieces:
                about.append(piece, style=style)
            rows.append((num, Text(record), label, score, about))
            table.add_row(*rows[-1])
        print_table(console, table, HEADERS, rows)
    if broken:
        _broken(console, broken)
