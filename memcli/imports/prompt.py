"""The import prompt (`memcli/prompts/import-*.md`), its version, and the messages for one chunk.

The same shape as extract's (memcli/extract/prompt.py): a system prompt with the rules, a user
message that fences the material between marker lines carrying a tag derived from it, and the same
structured answer (staging's ExtractedItems). Its own words, because a document is not a session:
the extract prompt tells the model to leave out what AGENTS.md or CLAUDE.md already say, which is
here the very material.
"""

from __future__ import annotations

import hashlib
import json
from functools import cache
from typing import TYPE_CHECKING, Any

from memcli.extract.prompt import answer_tokens
from memcli.prompts import read as read_prompt
from memcli.staging import ExtractedItems
from memcli.tokens import EstimateCounter

if TYPE_CHECKING:
    from memcli.imports.plan import Work

NAMES = ("system", "user")


@cache
def load(name: str) -> str:
    return read_prompt(f"import-{name}.md")


@cache
def version() -> str:
    """Changes whenever a prompt file changes (recorded with every imported chunk)."""
    digest = hashlib.sha256("\0".join(load(n) for n in NAMES).encode("utf-8")).hexdigest()
    return f"import-{digest[:12]}"


def chunk_budget(context: int, configured: int) -> int:
    """extract.chunk_tokens fitted to a model's window with this prompt (as extract does for its
    own: memcli.extract.prompt.chunk_budget says why the division)."""
    count = EstimateCounter().count
    fixed = count(load("system")) + count(load("user")) + count(json.dumps(
        ExtractedItems.model_json_schema(), ensure_ascii=False)) + 96  # framing, path, scope, tag
    fits = int((context - fixed - answer_tokens(context)) / 1.5)
    return max(200, min(configured, fits))


def messages(work: Work) -> list[dict[str, Any]]:
    # The scope comes from the file (a rule's description): inside the fence, like the rest of it.
    text = (f"--- scope: {work.scope}\n\n" if work.scope else "") + work.chunk.text()
    tag = hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]  # cannot occur in the text it hashes
    first, last = work.chunk.range
    values = {"path": work.source.id.replace("`", "'"), "title": work.title, "first": str(first),
              "last": str(last), "count": str(len(work.chunk.entries)), "tag": tag}
    user = load("user")
    for key, value in values.items():
        user = user.replace("{{" + key + "}}", value)
    user = user.replace("{{document}}", text)  # last: the file's text is never templated
    return [{"role": "system", "content": load("system")}, {"role": "user", "content": user}]
