"""`memcli mcp`'s stdio front: MCP's JSON-RPC read line by line, answered without the SDK.

Agents start their MCP servers with the session and the first model request waits for them (or
goes without memcli's tools); importing the `mcp` SDK alone takes about a second. This front
answers `initialize`, `ping`, `tools/list` and the empty prompt and resource lists from what the
SDK server declares (memcli.mcpserver.catalog: the same tools, schemas, capabilities and version
negotiation, compared by tests/mcp/test_lean_front.py), and runs each `tools/call` through the
same tool functions (memcli.mcpserver.tools) after checking its arguments against the tool's input
schema, importing only what that tool needs. Results, tool errors and unexpected failures have the
SDK server's shapes; an unknown method gets JSON-RPC's "Method not found". Calls are answered one
after the other, in the order they came.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from memcli import __version__
from memcli.errors import EXIT_OK, MemcliError
from memcli.mcpserver import catalog

if TYPE_CHECKING:
    from memcli.mcpserver import tools
    from memcli.workspace import Workspace

PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS = -32700, -32600, -32601, -32602
EMPTY_LISTS = {"prompts/list": "prompts", "resources/list": "resources",
               "resources/templates/list": "resourceTemplates"}


def calls(ws: Workspace, searcher: tools.Searcher) -> dict[str, Callable[..., tools.Reply]]:
    """Each tool's function, by name: what the SDK server's tool functions call too."""
    from memcli.mcpserver import tools  # here: the handshake loads no tool's code

    return {"memcli_search": searcher.search,
            "memcli_read": lambda **kw: tools.read(ws, **kw),
            "memcli_context": lambda **kw: tools.context(ws, **kw),
            "memcli_source": lambda **kw: tools.source(ws, **kw),
            "memcli_remember": tools.remember}


def _text_result(text: str, *, error: bool, data: Any = None) -> dict[str, Any]:
    result: dict[str, Any] = {"content": [{"text": text, "type": "text"}], "isError": error}
    if data is not None:
        result["structuredContent"] = data
    return result


def _initialize_params(params: Any) -> bool:
    """Whether `initialize`'s params have the fields the SDK requires of them."""
    info = params.get("clientInfo") if isinstance(params, dict) else None
    return (isinstance(params.get("protocolVersion"), str) and isinstance(params.get("capabilities"), dict)
            and isinstance(info, dict) and isinstance(info.get("name"), str)
            and isinstance(info.get("version"), str))


class Front:
    """One connection's state: the workspace, its tools, and the search index kept across calls.
    Given the workspace's root rather than the workspace, it answers the handshake from the config
    file alone (catalog.budget_of) and opens the workspace, config and all, at the first call."""

    def __init__(self, ws: Workspace | Path) -> None:
        self.root = ws if isinstance(ws, Path) else ws.root
        self._ws = None if isinstance(ws, Path) else ws
        self._budget = None if self._ws is None else self._ws.config.context.budget_tokens
        self.searcher: tools.Searcher | None = None
        self._calls: dict[str, Callable[..., tools.Reply]] | None = None
        self.schemas: dict[str, dict[str, Any]] | None = None

    def workspace(self) -> Workspace:
        if self._ws is None:
            from memcli.workspace import Workspace  # here: as in `calls`

            self._ws = Workspace.open(self.root)
        return self._ws

    @property
    def budget(self) -> int:
        if self._budget is None:
            found = catalog.budget_of(self.root)
            if found is None:
                try:
                    found = self.workspace().config.context.budget_tokens
                except MemcliError:  # a config that does not validate: each tool call says why
                    found = catalog.BUDGET_DEFAULT
            self._budget = found
        return self._budget

    def tool_calls(self) -> dict[str, Callable[..., tools.Reply]]:
        if self._calls is None:
            from memcli.mcpserver import tools  # here: as in `calls`

            ws = self.workspace()
            self.searcher = tools.Searcher(ws)
            self._calls = calls(ws, self.searcher)
        return self._calls

    def close(self) -> None:
        if self.searcher is not None:
            self.searcher.close()

    def answer(self, message: Any) -> dict[str, Any] | None:
        """The response to one message, or None for a notification (and a response)."""
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
            return {"jsonrpc": "2.0", "id": None,
                    "error": {"code": INVALID_REQUEST, "message": "Invalid Request"}}
        if "method" not in message or "id" not in message:
            return None  # a notification (initialized, cancelled, ...) or a client's response
        method, params = message["method"], message.get("params") or {}
        if method == "initialize" and not _initialize_params(params):
            return {"jsonrpc": "2.0", "id": message["id"],
                    "error": {"code": INVALID_PARAMS, "message": "Invalid request parameters", "data": ""}}
        if method == "initialize":
            result: dict[str, Any] = {
                "capabilities": catalog.declared()["capabilities"], "instructions": catalog.INSTRUCTIONS,
                "protocolVersion": catalog.negotiate(params.get("protocolVersion")),
                "serverInfo": {"name": catalog.SERVER_NAME, "version": __version__}}
        elif method == "ping":
            result = {}
        elif method == "tools/list":
            result = {"tools": catalog.tools(self.budget)}
        elif method == "tools/call":
            result = self.call(str(params.get("name")), params.get("arguments"))
        elif method in EMPTY_LISTS:
            result = {EMPTY_LISTS[method]: []}
        else:
            return {"jsonrpc": "2.0", "id": message["id"],
                    "error": {"code": METHOD_NOT_FOUND, "message": "Method not found", "data": method}}
        return {"jsonrpc": "2.0", "id": message["id"], "result": result}

    def call(self, name: str, given: Any) -> dict[str, Any]:
        if self.schemas is None:
            self.schemas = {t["name"]: t["inputSchema"] for t in catalog.tools(self.budget)}
        if name not in self.schemas:
            return _text_result(f"Unknown tool: {name}", error=True)
        try:
            reply = self.tool_calls()[name](**catalog.arguments(self.schemas[name], given))
        except (catalog.BadArguments, MemcliError) as exc:
            return _text_result(f"Error executing tool {name}: {exc}", error=True)
        except Exception as exc:  # a bug: logged in full, the call fails, the server keeps serving
            import traceback  # here: only a bug needs it

            traceback.print_exc(file=sys.stderr)
            return _text_result(f"Error executing tool {name}: {exc}", error=True)
        return _text_result(reply.text, error=False, data=reply.data)


def run(front: Front, stdin: IO[bytes], stdout: IO[bytes]) -> None:
    for line in stdin:
        if not line.strip():
            continue
        try:
            message = json.loads(line)
        except ValueError:
            response: dict[str, Any] | None = {"jsonrpc": "2.0", "id": None,
                                               "error": {"code": PARSE_ERROR, "message": "Parse error"}}
        else:
            response = front.answer(message)
        if response is not None:
            stdout.write(json.dumps(response, ensure_ascii=False, separators=(",", ":")).encode() + b"\n")
            stdout.flush()


def serve(ws: Workspace | Path) -> int:
    """Serve `ws` (or the workspace at that root) over stdio until the agent closes the connection
    (`memcli mcp`)."""
    front = Front(ws)
    try:
        run(front, sys.stdin.buffer, sys.stdout.buffer)
    except BrokenPipeError:
        pass  # the agent closed its end first: nobody is left to answer
    finally:
        front.close()
    return EXIT_OK
