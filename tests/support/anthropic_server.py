"""The Anthropic Messages API, as Claude Code calls it, scripted for tests/e2e.

`POST /v1/messages` (Claude Code adds `?beta=true`) with `"stream": true` is answered as a stream of
server-sent events (message_start, content blocks with text_delta / input_json_delta, message_delta,
message_stop); without `stream`, as one JSON message. Only requests for a turn of the conversation
(the ones that offer Claude Code's tools) take the next scripted `Turn`; Claude Code's side requests
are answered without touching the script: token counting (`/v1/messages/count_tokens`), and
tool-less calls such as the session title or the quota check get a short text.

    server = AnthropicServer()
    server.script(Turn(tool="mcp__memcli__memcli_search", args={"query": "sqlite"}), Turn(text="done"))
    with server:
        ... ANTHROPIC_BASE_URL=server.url claude -p ...
    server.model_requests()[0].body["tools"]
"""

from __future__ import annotations

import itertools
import json
import time
from http.server import BaseHTTPRequestHandler
from typing import Any

from support.agent_server import Request, ScriptedServer, Turn, send_json, send_sse

_ids = itertools.count(1)


def is_turn(request: Request) -> bool:
    """A request for a turn of the conversation: a Messages call that offers tools (side tasks —
    titles, quota probes, summaries — send none)."""
    body = request.body
    return (request.method == "POST" and request.path.split("?")[0] == "/v1/messages"
            and isinstance(body, dict) and bool(body.get("tools")))


def _blocks(turn: Turn) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    if turn.text is not None:
        blocks.append({"type": "text", "text": turn.text})
    if turn.tool is not None:
        blocks.append({"type": "tool_use", "id": f"toolu_{next(_ids):08d}", "name": turn.tool,
                       "input": turn.args})
    return blocks


def _message(model: str, blocks: list[dict[str, Any]], stop: str) -> dict[str, Any]:
    return {"id": f"msg_{next(_ids):08d}", "type": "message", "role": "assistant", "model": model,
            "content": blocks, "stop_reason": stop, "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 5}}


def _events(message: dict[str, Any]) -> list[tuple[str | None, Any]]:
    start = dict(message, content=[], stop_reason=None)
    events: list[tuple[str | None, Any]] = [("message_start", {"type": "message_start", "message": start})]
    for index, block in enumerate(message["content"]):
        if block["type"] == "text":
            opened, delta = {"type": "text", "text": ""}, {"type": "text_delta", "text": block["text"]}
        else:
            opened = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        events += [("content_block_start", {"type": "content_block_start", "index": index,
                                            "content_block": opened}),
                   ("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}),
                   ("content_block_stop", {"type": "content_block_stop", "index": index})]
    events += [("message_delta", {"type": "message_delta",
                                  "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
                                  "usage": {"output_tokens": 5}}),
               ("message_stop", {"type": "message_stop"})]
    return events


class AnthropicServer(ScriptedServer):
    def __init__(self, tool_less_turns: bool = False) -> None:
        super().__init__()
        self.turn_times: list[float] = []  # time.monotonic() when each turn request arrived
        # every Messages call is a turn, tools or not: an agent run with no tools at all (memcli's
        # headless questions) and no side requests (Pi)
        self.tool_less_turns = tool_less_turns

    def is_turn(self, request: Request) -> bool:
        if self.tool_less_turns:
            return request.method == "POST" and request.path.split("?")[0] == "/v1/messages"
        return is_turn(request)

    def model_requests(self) -> list[Request]:
        return [r for r in self.requests if self.is_turn(r)]

    def answer(self, handler: BaseHTTPRequestHandler, request: Request) -> None:
        if self.is_turn(request):
            self.turn_times.append(time.monotonic())
        path = request.path.split("?")[0]
        body = request.body if isinstance(request.body, dict) else {}
        if path == "/v1/messages/count_tokens":
            send_json(handler, {"input_tokens": 100})
            return
        if path != "/v1/messages" or request.method != "POST":
            send_json(handler, {"type": "error", "error": {"type": "not_found_error",
                                                          "message": f"no {request.method} {path}"}}, 404)
            return
        turn = self.next_turn() if self.is_turn(request) else Turn(text="memcli e2e")
        blocks = _blocks(turn)
        message = _message(str(body.get("model", "claude")), blocks,
                           "tool_use" if turn.tool else "end_turn")
        if body.get("stream"):
            send_sse(handler, _events(message))
        else:
            send_json(handler, message)
