"""The consolidation prompt files (`memcli/prompts/consolidate-*.md`) and their version hash."""

from __future__ import annotations

import hashlib
from functools import cache

from memcli.prompts import read as read_prompt

NAMES = ("system", "integration", "gc", "repair")


@cache
def load(name: str) -> str:
    return read_prompt(f"consolidate-{name}.md")


def render(name: str, **values: str) -> str:
    text = load(name)
    for key, value in values.items():
        text = text.replace("{{" + key + "}}", value)
    return text


def version() -> str:
    digest = hashlib.sha256("".join(load(n) for n in NAMES).encode("utf-8")).hexdigest()
    return f"consolidate-{digest[:12]}"
