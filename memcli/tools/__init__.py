"""The memory tools: the only way a model writes memory — confined, linted, rule-enforcing.

API (for the consolidation worker and agent integrations)::

    from memcli.tools import ToolSession
    tools = ToolSession(
        Workspace(root=scratch, config=config),   # the tools work on this root only (a scratch copy)
        allowed_sources=staging_sources,          # Sources this run was given (plus every Source on a
                                                  #   record now: merge/split); None: rule not applied
        knowledge_sources=report_sources,         # knowledge-candidate report Sources; [] → no new
                                                  #   knowledge files; None: rule not applied
        usage_rates={"slug-or-path": 2.5},        # explicit invokes / million tokens; None/{}: no metrics
        phase=Phase.INTEGRATION,                  # or GC: then every mutating call needs a category
        docs_root=repo_root,                      # offers project_docs (AGENTS.md, README, docs/) there
    )
    litellm.completion(..., tools=tools.schemas())   # OpenAI tool-calling format, follows `phase`
    text = tools.dispatch(call.function.name, call.function.arguments)   # JSON text for the model
    tools.phase = Phase.GC                        # the session owns the phase; the run sets it
    for entry in tools.journal:                   # ordered; for the commit message
        entry.line()  # "edit memory/decisions/x.md [superseded] 1200→800 chars: why"
    tools.refusals                                # every call refused (error refused | path), in order:
                                                  #   Refusal(tool, code, path, line, phase)

Sources may be `memcli.records.Source`, frontmatter-like dicts, or (session_id, start, end) tuples.
`dispatch` never raises on model input: unknown tool, malformed JSON or arguments come back as an
error result. Every result is one JSON object: `ok`, `message`, and on failure `error` (refused |
path | arguments | not-found | no-match | multiple-matches | unknown-tool | unreadable | io) and,
when refused, `violations` (code, severity, path, line, field, message) — all of them at once —
plus `warnings`, which never block. The plain Python API returns the same as a `ToolResult`:
`read(path, start_line=None, end_line=None)`, `write(path, content, mode, reason, category=None)`,
`edit(path, old_string, new_string, reason, category=None, replace_all=False)`,
`delete(path, reason, category=None)`, `search_memory(query, types=None, status=None,
include_replaced=False, limit=10)`, `search_knowledge(query, kind=None, limit=10)`;
`call(name, arguments) -> ToolResult` is `dispatch` without the JSON encoding.

The tools never run git and never call a model; writes are atomic (memcli.atomicio).

Modules: `session` (ToolSession, the write path), `schemas` (tool schemas, argument checks),
`paths` (confinement; a record argument by path or slug), `policy` (reason/category, decision
delete, knowledge candidates, usage protection, trust; `withhold`, the trust filter for text shown
outside records), `edit` (exact replacement), `read` (read + size against cap), `search` (the two
search tools), `docs` (project_docs, read-only), `phase` (Phase: integration | gc | repair),
`journal` (JournalEntry, Refusal), `result` (ToolResult, Violation). Workspace text in a result
reaches the model fenced as data (`memcli.fence`).
"""

from __future__ import annotations

from memcli.tools.journal import JournalEntry, Refusal
from memcli.tools.phase import Phase
from memcli.tools.result import ToolResult, Violation
from memcli.tools.schemas import CATEGORIES, TOOL_NAMES, tool_schemas
from memcli.tools.session import ToolSession

__all__ = [
    "CATEGORIES",
    "TOOL_NAMES",
    "JournalEntry",
    "Phase",
    "Refusal",
    "ToolResult",
    "ToolSession",
    "Violation",
    "tool_schemas",
]
