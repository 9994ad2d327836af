"""The resident context: what an agent should always have in context (spec 2 §6).

`memory/summary.md`, then a `slug — description` index of knowledge with `model_invocation: true`,
cut to a token budget and closed by one line saying what was cut (memcli.context.layout), read
from the record store or the files (memcli.context.read), the layout kept between runs while the
records do not change (memcli.context.memo). `memcli context` prints it (memcli.commands.context),
the session-start hooks and the MCP tool `memcli_context` send it.
"""

from __future__ import annotations

from memcli.context.layout import ContextResult, build_context
from memcli.context.read import KIND_ORDER, Entry, order_entries, resident_entries
from memcli.recordtext import one_line

# (Entry, order_entries, resident_entries: gc-report builds the same index; one_line: its facts)
__all__ = ["KIND_ORDER", "ContextResult", "Entry", "build_context", "one_line", "order_entries",
           "resident_entries"]
