"""`memcli mcp --relay SOCKET`: the tools of one consolidation run, served over stdio to the coding
agent that runs as its model (memcli.consolidate.delegate starts the agent with this as its only
MCP server). Every call goes back over the socket to the memcli process that owns the run's tool
session (memcli.relay), so the same linted, confined tools, dispositions and journal apply as when
memcli calls a model API itself; this process holds no state and writes nothing.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from mcp.server.lowlevel.server import Server
from mcp.server.stdio import stdio_server
from mcp.types import CallToolResult, ListToolsResult, TextContent, Tool

from memcli import __version__, relay
from memcli.errors import EXIT_OK, UsageError

SERVER_NAME = "memcli"


class _Link:
    """The socket to the run, one request at a time (the SDK calls tools from several tasks)."""

    def __init__(self, path: str) -> None:
        self.sock = relay.connect(path)
        self.reader = self.sock.makefile("rb")
        self.lock = threading.Lock()

    def ask(self, message: dict[str, Any]) -> dict[str, Any]:
        with self.lock:
            relay.send(self.sock, message)
            answer = relay.receive(self.reader)
        if answer is None:
            raise relay.RelayError("the consolidation run ended")
        return answer


def serve(path: str) -> int:
    try:
        link = _Link(path)
    except relay.RelayError as exc:
        raise UsageError(str(exc)) from None
    listing = link.ask({"op": "tools"})
    tools = [Tool(name=t["name"], description=t.get("description") or "", input_schema=t["input_schema"])
             for t in listing.get("tools", [])]

    async def list_tools(ctx: Any, params: Any) -> ListToolsResult:
        return ListToolsResult(tools=tools)

    async def call_tool(ctx: Any, params: Any) -> CallToolResult:
        message = {"op": "call", "name": params.name, "arguments": params.arguments or {}}
        try:
            answer = await asyncio.to_thread(link.ask, message)
        except (relay.RelayError, OSError) as exc:
            return CallToolResult(content=[TextContent(type="text", text=str(exc))], is_error=True)
        return CallToolResult(content=[TextContent(type="text", text=str(answer.get("text", "")))],
                              is_error=bool(answer.get("error")))

    server = Server(SERVER_NAME, version=__version__, instructions=listing.get("instructions") or None,
                    on_list_tools=list_tools, on_call_tool=call_tool)

    async def main() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    try:
        asyncio.run(main())
    except* BrokenPipeError:
        pass
    finally:
        link.sock.close()
    return EXIT_OK
