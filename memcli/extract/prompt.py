"""The Phase 1 prompt (`memcli/prompts/extract-*.md`), its version, and the messages for one chunk."""

from __future__ import annotations

import hashlib
from functools import cache
from typing import Any

from memcli.extract.prepare import Chunk
from memcli.prompts import read as read_prompt

NAMES = ("system", "user")


@cache
def load(name: str) -> str:
    return read_prompt(f"extract-{name}.md")


@cache
def version() -> str:
    """Changes whenever a prompt file changes, so the ledger can tell stale spans."""
    digest = hashlib.sha256("\0".join(load(n) for n in NAMES).encode("utf-8")).hexdigest()
    return f"extract-{digest[:12]}"


def messages(agent: str, piece: Chunk) -> list[dict[str, Any]]:
    transcript = piece.text()
    # A tag derived from the content cannot occur inside that content, so the transcript cannot
    # forge the closing marker; deterministic, so --dry-run shows exactly what a run sends.
    tag = hashlib.sha256(transcript.encode("utf-8")).hexdigest()[:16]
    first, last = piece.range
    values = {"agent": agent, "first": str(first), "last": str(last), "count": str(len(piece.entries)),
              "tag": tag, "transcript": transcript}
    user = load("user")
    for key in ("agent", "first", "last", "count", "tag"):
        user = user.replace("{{" + key + "}}", values[key])
    user = user.replace("{{transcript}}", transcript)  # last: transcript text is never templated
    return [{"role": "system", "content": load("system")}, {"role": "user", "content": user}]
