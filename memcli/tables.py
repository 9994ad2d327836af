"""Tables: a Rich table on a terminal, plain lines everywhere else.

Piped into grep, cut or a file, a Rich table wraps and folds cells at an arbitrary width, splitting
paths and ids across lines. Off a terminal every row is one line instead: the cells joined by a
tab (newlines inside a cell become ` · `), after the title and one header line, so `grep`, `cut -f`
and `awk -F'\t'` see whole paths.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text


def plain_cell(cell: str | Text) -> str:
    text = cell if isinstance(cell, str) else cell.plain
    return " · ".join(part.strip() for part in text.splitlines() if part.strip())


def print_table(console: Console, table: Table, headers: Sequence[str],
                rows: Sequence[Sequence[str | Text]]) -> None:
    """`table` (already filled with `rows`) on a terminal; otherwise `headers` and `rows` as lines."""
    if console.is_terminal:
        console.print(table)
        return
    lines = [str(table.title)] if table.title else []
    lines.append("\t".join(headers))
    lines += ["\t".join(plain_cell(c) for c in row) for row in rows]
    console.file.write("\n".join(lines) + "\n")
