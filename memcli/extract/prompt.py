"""The Phase 1 prompt (`memcli/prompts/extract-*.md`), its version, and the messages for one chunk."""

from __future__ import annotations

import hashlib
import json
from functools import cache
from typing import Any

from memcli.extract.prepare import Chunk
from memcli.prompts import read as read_prompt
from memcli.staging import ExtractedItems
from memcli.tokens import EstimateCounter

NAMES = ("system", "user")


@cache
def load(name: str) -> str:
    return read_prompt(f"extract-{name}.md")


@cache
def version() -> str:
    """Changes whenever a prompt file changes, so the ledger can tell stale spans."""
    digest = hashlib.sha256("\0".join(load(n) for n in NAMES).encode("utf-8")).hexdigest()
    return f"extract-{digest[:12]}"


def answer_tokens(context: int) -> int:
    """Room for one answer in a window of `context` tokens, sent as the call's max_tokens: a local
    server otherwise lets a rambling small model run until the window is full."""
    return min(4096, context // 4)


def chunk_budget(context: int, configured: int) -> int:
    """The chunk size (prepare's estimate) that fits a model's context window: the window less the
    instructions, the answer schema and room for the answer, converted to prepare's units; never
    above `configured` (extract.chunk_tokens). The gateway's estimate (memcli.tokens) counts up to
    1.5x prepare's (1.5 vs 1 per CJK character, 1/3 vs 1/4 per ASCII one), hence the division."""


    count = EstimateCounter().count
    fixed = count(load("system")) + count(load("user")) + count(json.dumps(
        ExtractedItems.model_json_schema(), ensure_ascii=False)) + 64  # message framing, tag, counts
    fits = int((context - fixed - answer_tokens(context)) / 1.5)
    # A window too small for even a short chunk: chunks stay small, and the gateway refuses each
    # one as over the window (the chunk fails, and is retried once the window is set larger).
    return max(200, min(configured, fits))


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
