"""The consolidation prompt files (`prompts/consolidate-*.md`) and their version hash."""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path

NAMES = ("system", "integration", "gc", "repair")


def _folder() -> Path:
    # Installed: the package `memcli.prompts`; editable checkout: `prompts/` next to `memcli/`.
    try:
        import memcli.prompts as pkg  # type: ignore[import-not-found]

        return Path(pkg.__file__).parent
    except ImportError:
        return Path(__file__).resolve().parents[2] / "prompts"


@cache
def load(name: str) -> str:
    return (_folder() / f"consolidate-{name}.md").read_text(encoding="utf-8")


def render(name: str, **values: str) -> str:
    text = load(name)
    for key, value in values.items():
        text = text.replace("{{" + key + "}}", value)
    return text


def version() -> str:
    digest = hashlib.sha256("".join(load(n) for n in NAMES).encode("utf-8")).hexdigest()
    return f"consolidate-{digest[:12]}"
