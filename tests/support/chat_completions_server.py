"""The OpenAI Chat Completions API (`POST <base>/chat/completions`, streamed as server-sent events),
scripted: what an agent pointed at "any OpenAI-compatible endpoint" speaks (GitHub Copilot CLI's
BYOK provider of type `openai`, its default wire API `completions`).

Each request that offers tools is a turn of the conversation: it takes the next scripted `Turn` and
streams it as Chat Completions chunks (the text as one `delta.content`, a tool call as one
`delta.tool_calls` entry with its id, name and JSON-string arguments, then a chunk with the
`finish_reason` and the usage). A request without tools is an agent's side task (a session title,
a prompt refinement): it gets a short text and leaves the script alone, so the scripted turns line
up with the agent's turns. `stream: false` gets the same answer as one `chat.completion` object.

    server = ChatCompletionsServer()
    server.script(Turn(tool="memcli-memcli_search", args={"query": "sqlite"}), Turn(text="done"))
    with server: ... COPILOT_PROVIDER_BASE_URL=server.url + "/v1" ...
    server.model_requests()[0].body["tools"]
"""

from __future__ import annotations

import itertools
import json
import time
from http.server import BaseHTTPRequestHandler
from typing import Any

from support.agent_server import Request, ScriptedServer, Turn, send_json

_ids = itertools.count(1)
USAGE = {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}
SIDE_ANSWER = "Scripted title"


def _path(request: Request) -> str:
    return request.path.split("?", 1)[0].rstrip("/")


def send_stream(handler: BaseHTTPRequestHandler, chunks: list[dict[str, Any]]) -> None:
    """Chunks as server-sent events, closed by `data: [DONE]` as OpenAI closes a stream."""
    payload = "".join(f"data: {json.dumps(c, ensure_ascii=False)}\n\n" for c in chunks) + "data: [DONE]\n\n"
    data = payload.encode()
    handler.send_response(200)
    handler.send_header("Content-Type", "text/event-stream")
    handler.send_header("Cache-Control", "no-cache")
    handler.send_header("Content-Length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)


def is_turn(request: Request) -> bool:
    """A request for a turn of the conversation: a completion that offers tools."""
    body = request.body
    return (request.method == "POST" and _path(request).endswith("/chat/completions")
            and isinstance(body, dict) and bool(body.get("tools")))


class ChatCompletionsServer(ScriptedServer):
    def __init__(self, tool_less_turns: bool = False) -> None:
        super().__init__()
        self.turn_times: list[float] = []  # time.monotonic() when each turn request arrived
        # every completion is a turn, tools or not: an agent run with no tools at all (memcli's
        # headless questions), whose agent asks nothing on the side
        self.tool_less_turns = tool_less_turns

    def is_turn(self, request: Request) -> bool:
        if self.tool_less_turns:
            return request.method == "POST" and _path(request).endswith("/chat/completions")
        return is_turn(request)

    def answer(self, handler: BaseHTTPRequestHandler, request: Request) -> None:
        path = _path(request)
        body = request.body if isinstance(request.body, dict) else {}
        if request.method == "POST" and path.endswith("/chat/completions"):
            if self.is_turn(request):
                self.turn_times.append(time.monotonic())
                turn = self.next_turn()
            else:
                turn = Turn(text=SIDE_ANSWER)
            model = str(body.get("model", "scripted"))
            if body.get("stream"):
                send_stream(handler, self.chunks(turn, model))
            else:
                send_json(handler, self.completion(turn, model))
        elif request.method == "GET" and path.endswith("/models"):
            send_json(handler, {"object": "list", "data": []})
        else:
            send_json(handler, {"error": {"message": f"not scripted: {request.method} {path}"}}, 404)

    def model_requests(self) -> list[Request]:
        """The requests that asked the model for a turn, in order."""
        return [r for r in self.requests if self.is_turn(r)]

    @staticmethod
    def _call(turn: Turn) -> dict[str, Any]:
        return {"id": f"call_{next(_ids):08d}", "type": "function",
                "function": {"name": turn.tool, "arguments": json.dumps(turn.args, ensure_ascii=False)}}

    @classmethod
    def chunks(cls, turn: Turn, model: str) -> list[dict[str, Any]]:
        base = {"id": f"chatcmpl-{next(_ids)}", "object": "chat.completion.chunk",
                "created": int(time.time()), "model": model}

        def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> dict[str, Any]:
            return {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}], **extra}

        out = [chunk({"role": "assistant", "content": ""})]
        if turn.text:
            out.append(chunk({"content": turn.text}))
        if turn.tool:
            out.append(chunk({"tool_calls": [{"index": 0, **cls._call(turn)}]}))
        out.append(chunk({}, "tool_calls" if turn.tool else "stop"))
        out.append({**base, "choices": [], "usage": USAGE})
        return out

    @classmethod
    def completion(cls, turn: Turn, model: str) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": turn.text}
        if turn.tool:
            message["tool_calls"] = [cls._call(turn)]
        finish = "tool_calls" if turn.tool else "stop"
        return {"id": f"chatcmpl-{next(_ids)}", "object": "chat.completion", "created": int(time.time()),
                "model": model, "usage": USAGE,
                "choices": [{"index": 0, "message": message, "finish_reason": finish}]}
