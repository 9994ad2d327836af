"""The `anchors` field of a record: the code it depends on, as paths (and symbols) in the repository.

    anchors:
      - src/jobs/runner.py              # a path, relative to the repository root
      - path: src/jobs/runner.py        # or a path and a symbol that must appear in it
        symbol: run_pending

What the field says; whether it still holds is memcli.anchors' business (it asks the repository).
"""

from __future__ import annotations

import re
from typing import Any

from memcli.values import frozen

FIELD = "anchors"


@frozen
class Anchor:
    path: str
    symbol: str | None = None

    def __str__(self) -> str:
        return self.path + (f" ({self.symbol})" if self.symbol else "")


def path_problem(path: str) -> str | None:
    """Why `path` cannot be an anchor (outside the repository), or None."""
    if not path.strip():
        return "an empty path"
    if path.startswith(("/", "~", "\\")) or re.match(r"^[A-Za-z]:[\\/]", path):
        return f"{path!r} is absolute; anchors are paths inside the repository, relative to its root"
    if any(part == ".." for part in re.split(r"[\\/]", path)):
        return f"{path!r} leaves the repository ('..'); anchors name files inside it"
    if "://" in path:
        return f"{path!r} is a URL; anchors name files of this repository"
    return None


def anchors_of(meta: dict[str, Any] | None) -> list[Anchor]:
    """The well-formed anchors of a record's frontmatter (malformed ones are the Linter's business)."""
    raw = (meta or {}).get(FIELD)
    out = []
    for item in raw if isinstance(raw, list) else []:
        if isinstance(item, str):
            path, symbol = item, None
        elif isinstance(item, dict) and isinstance(item.get("path"), str):
            path = item["path"]
            symbol = item.get("symbol") if isinstance(item.get("symbol"), str) and item["symbol"] else None
        else:
            continue
        path = path.strip().removeprefix("./")
        if path_problem(path) is None:
            out.append(Anchor(path, symbol.strip() if symbol else None))
    return out
