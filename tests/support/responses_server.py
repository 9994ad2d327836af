"""A scripted OpenAI Responses API (`POST /v1/responses`, streamed as server-sent events), the only
wire API Codex CLI speaks to a model provider (`wire_api = "responses"` in `[model_providers.<id>]`).

Each model request takes the next scripted `Turn` and streams it the way the Responses API does:
`response.created`, one `response.output_item.added` / `.done` pair per output item (an assistant
`message`, or a `function_call` with its `call_id` and JSON-string `arguments`), then
`response.completed` with the usage Codex counts. Everything else Codex may ask for on the side
(the model list, a compaction, a title) is answered without touching the script, so the scripted
turns line up with the agent's turns.
"""

from __future__ import annotations

import itertools
import json
import time
from http.server import BaseHTTPRequestHandler
from typing import Any

from support.agent_server import Request, ScriptedServer, Turn, send_json, send_sse

_ids = itertools.count(1)


class ResponsesServer(ScriptedServer):
    def __init__(self) -> None:
        super().__init__()
        self.turn_times: list[float] = []  # time.monotonic() when each turn request arrived

    def answer(self, handler: BaseHTTPRequestHandler, request: Request) -> None:
        path = request.path.split("?", 1)[0].rstrip("/")
        if request.method == "POST" and path.endswith("/responses"):
            self.turn_times.append(time.monotonic())
            send_sse(handler, self.events(self.next_turn(), request.body))
        elif request.method == "GET" and path.endswith("/models"):
            send_json(handler, {"object": "list", "data": [], "models": []})
        else:
            send_json(handler, {"error": {"message": f"not scripted: {request.method} {path}"}}, 404)

    def model_requests(self) -> list[Request]:
        """The requests that asked the model for a turn, in order."""
        return [r for r in self.requests
                if r.method == "POST" and r.path.split("?", 1)[0].rstrip("/").endswith("/responses")]

    @staticmethod
    def events(turn: Turn, body: Any) -> list[tuple[str | None, Any]]:
        model = body.get("model", "scripted") if isinstance(body, dict) else "scripted"
        response_id = f"resp_{next(_ids)}"
        items: list[dict[str, Any]] = []
        if turn.text is not None:
            items.append({"type": "message", "id": f"msg_{next(_ids)}", "role": "assistant",
                          "status": "completed",
                          "content": [{"type": "output_text", "text": turn.text, "annotations": []}]})
        if turn.tool is not None:
            call = {"type": "function_call", "id": f"fc_{next(_ids)}", "call_id": f"call_{next(_ids)}",
                    "name": turn.tool, "arguments": json.dumps(turn.args, ensure_ascii=False),
                    "status": "completed"}
            items.append({**call, **_namespaced(turn.tool, body)})
        base = {"id": response_id, "object": "response", "model": model, "output": []}
        events: list[tuple[str | None, Any]] = [
            ("response.created", {"type": "response.created", "response": {**base, "status": "in_progress"}})]
        for index, item in enumerate(items):
            events.append(("response.output_item.added",
                           {"type": "response.output_item.added", "output_index": index, "item": item}))
            if item["type"] == "message":
                events.append(("response.output_text.delta",
                               {"type": "response.output_text.delta", "item_id": item["id"],
                                "output_index": index, "content_index": 0, "delta": turn.text}))
            events.append(("response.output_item.done",
                           {"type": "response.output_item.done", "output_index": index, "item": item}))
        usage = {"input_tokens": 100, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 10,
                 "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 110}
        events.append(("response.completed", {"type": "response.completed",
                                              "response": {**base, "status": "completed", "output": items,
                                                           "usage": usage}}))
        return events


def _namespaced(tool: str, body: Any) -> dict[str, str]:
    """Codex offers an MCP server's tools as one `namespace` tool (`mcp__memcli`) holding plain
    functions (`memcli_search`); a call to one names both. `mcp__memcli__memcli_search` is split so."""
    tools = body.get("tools") if isinstance(body, dict) else None
    for entry in tools if isinstance(tools, list) else []:
        space = entry.get("name") if isinstance(entry, dict) and entry.get("type") == "namespace" else None
        if isinstance(space, str) and tool.startswith(space + "__"):
            return {"namespace": space, "name": tool[len(space) + 2:]}
    return {}
