"""The memcli tools declared to the official MCP SDK: the one declaration of their names,
descriptions, input schemas (from the functions' signatures), output schemas (memcli.mcpserver.shapes)
and annotations.

`memcli mcp` does not import the SDK: its stdio front (memcli.mcpserver.stdio) answers from
declared.json, which is what this server lists (written by `python tests/support/mcp_declared.py`;
tests/mcp/test_lean_front.py runs both servers on the same messages and compares their answers),
and calls the same tool functions (`stdio.calls`). Importing the SDK takes about a second, most of
an agent's wait for memcli's tools. Every result carries structured content, a JSON object
declared as the tool's outputSchema, beside its text; errors the model can act on come back as tool
errors (`isError`) with a one-line fix.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import (
    CallToolResult,  # in the tools' annotations, which the SDK evaluates here
    TextContent,
    ToolAnnotations,
)
from pydantic import Field

from memcli import __version__
from memcli.errors import MemcliError
from memcli.mcpserver import shapes, tools
from memcli.mcpserver.catalog import INSTRUCTIONS, SERVER_NAME
from memcli.mcpserver.stdio import calls

if TYPE_CHECKING:
    from memcli.workspace import Workspace

SearchType = Literal["decision", "request", "knowledge", "summary", "workflow"]


def build_server(ws: Workspace, searcher: tools.Searcher | None = None) -> Any:
    """The MCPServer with the five memcli tools bound to `ws`; `searcher` keeps memcli_search's
    index (the caller closes it)."""
    if searcher is None:
        searcher = tools.Searcher(ws)
    call = calls(ws, searcher)
    server = MCPServer(SERVER_NAME, version=__version__, instructions=INSTRUCTIONS, log_level="WARNING")
    read_only = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True,
                                open_world_hint=False)

    def answer(fn: Any, **kwargs: Any) -> CallToolResult:
        """The reply as structured content and text; memcli errors become tool errors with their
        own message (the SDK would hide it)."""
        try:
            reply = fn(**kwargs)
        except MemcliError as exc:
            raise ToolError(str(exc)) from None
        return CallToolResult(content=[TextContent(type="text", text=reply.text)],
                              structured_content=reply.data)

    @server.tool(description="Search the project memory (decisions, requests, knowledge, summary, "
                 "workflow) and get ranked hits with slug, path and a snippet; then memcli_read one.",
                 annotations=read_only)
    def memcli_search(
        query: Annotated[str, Field(description="Words to look for, any language (e.g. 'sqlite backup').",
                                    min_length=1, max_length=500)],
        types: Annotated[list[SearchType], Field(  # no null in schemas: some clients reject anyOf
            description="Only these record types (default: all).")] = [],  # noqa: B006 - never mutated
        limit: Annotated[int, Field(description="How many hits.", ge=1, le=tools.MAX_LIMIT)] = 10,
    ) -> Annotated[CallToolResult, shapes.SearchResult]:
        return answer(call["memcli_search"], query=query, types=types, limit=limit)

    @server.tool(description="Read one memory record (frontmatter and body) by its slug, e.g. "
                 "'sqlite-backup', or its path, e.g. 'memory/decisions/use-sqlite.md'.",
                 annotations=read_only)
    def memcli_read(
        record: Annotated[str, Field(description="A record's slug, or its path under memory/ or knowledge/.",
                                     min_length=1, max_length=512)],
        why: Annotated[bool, Field(description="Also return its story: the commits that changed it and why, "
                                   "its Sources with who said them (user, agent, tool output), who used it.")]
        = False,
    ) -> Annotated[CallToolResult, shapes.ReadResult]:
        return answer(call["memcli_read"], record=record, why=why)

    budget_default = ws.config.context.budget_tokens

    @server.tool(description="Get the project's resident context: the memory summary and the index of "
                 "knowledge to consult, within a token budget. Call it when a task starts.",
                 annotations=read_only)
    def memcli_context(
        budget: Annotated[int, Field(description="Token budget.", ge=100, le=200_000)] = budget_default,
    ) -> Annotated[CallToolResult, shapes.ContextResult]:
        return answer(call["memcli_context"], budget=budget)

    @server.tool(description="Show the transcript entries a record's Source points to (session id and "
                 "entry range), redacted, to check what was actually said.",
                 annotations=read_only)
    def memcli_source(
        session: Annotated[str, Field(description="Session id (or a unique prefix) from a Source.",
                                      min_length=1, max_length=200)],
        start: Annotated[int, Field(description="First entry index of the range.", ge=0)],
        end: Annotated[int, Field(description="Last entry index of the range (inclusive).", ge=0)],
    ) -> Annotated[CallToolResult, shapes.SourceResult]:
        return answer(call["memcli_source"], session=session, start=start, end=end)

    @server.tool(description="Ask to keep a decision, request or rule the user stated in project "
                 "memory; it is reviewed and filed after this session (nothing is written now).",
                 annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False,
                                             idempotent_hint=False, open_world_hint=False))
    def memcli_remember(
        kind: Annotated[Literal["decision", "request", "rule"], Field(
            description="decision: a choice made and settled; request: something the user wants; "
                        "rule: a standing instruction to follow from now on.")],
        text: Annotated[str, Field(description="What to keep, in one or two self-contained sentences.",
                                   min_length=1, max_length=tools.REMEMBER_TEXT_CHARS)],
        why: Annotated[str, Field(description="The reason given, if any.",
                                  max_length=tools.REMEMBER_TEXT_CHARS)] = "",
    ) -> Annotated[CallToolResult, shapes.RememberResult]:
        return answer(call["memcli_remember"], kind=kind, text=text, why=why)

    return server

