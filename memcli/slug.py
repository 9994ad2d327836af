"""The slug grammar (spec 1 §2): Agent Skills compatible, 1-64 chars, no `--`."""

from __future__ import annotations

import re

SLUG_RE = re.compile(r"^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$")
MAX_SLUG_LEN = 64


def is_valid_slug(slug: str) -> bool:
    return bool(SLUG_RE.match(slug)) and "--" not in slug


def slug_problem(slug: str) -> str | None:
    """Why `slug` is not valid, in words a user can act on; None when it is valid."""
    if not slug:
        return "the slug is empty"
    if len(slug) > MAX_SLUG_LEN:
        return f"the slug has {len(slug)} characters; at most {MAX_SLUG_LEN} are allowed"
    if slug != slug.lower():
        return "the slug has upper-case letters; use lower-case a-z, 0-9 and '-'"
    if slug.startswith("-") or slug.endswith("-"):
        return "the slug starts or ends with '-'"
    if "--" in slug:
        return "the slug contains '--'"
    bad = sorted({c for c in slug if not (c.isascii() and (c.isalnum() or c == "-"))})
    if bad:
        return f"the slug contains {''.join(bad)!r}; use only a-z, 0-9 and '-'"
    if not is_valid_slug(slug):  # pragma: no cover - the checks above cover the grammar
        return "the slug does not match ^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$"
    return None
