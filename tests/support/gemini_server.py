"""The Gemini API as Gemini CLI calls it, scripted: `GOOGLE_GEMINI_BASE_URL` points the CLI here.

Checked against Gemini CLI 0.61.0 (its bundle's @google/genai client) by running it against this
server and reading the request log:
- `POST /v1beta/models/<model>:streamGenerateContent?alt=sse` — the agent's turns: each takes the
  next scripted `Turn` and answers it as server-sent `GenerateContentResponse` chunks (text, then a
  `functionCall` part);
- `POST /v1beta/models/<model>:generateContent` — the CLI's side calls (its model router's
  classifier, loop and next-speaker checks, session summaries), answered with a small JSON object
  without using the script, so the script is the conversation alone;
- `POST .../:countTokens` — a token count; `GET /v1beta/models...` — a model list.
"""

from __future__ import annotations

import json
import re
import time
from http.server import BaseHTTPRequestHandler
from typing import Any

from support.agent_server import Request, ScriptedServer, Turn, send_json, send_sse

_ACTION = re.compile(r"^/v1(?:beta|alpha)?/models/([^:/?]+):(\w+)")
USAGE = {"promptTokenCount": 100, "candidatesTokenCount": 10, "totalTokenCount": 110}


def _chunk(parts: list[dict[str, Any]], model: str, finish: str | None = None) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
    if finish:
        candidate["finishReason"] = finish
    body: dict[str, Any] = {"candidates": [candidate], "modelVersion": model}
    if finish:
        body["usageMetadata"] = USAGE
    return body


class GeminiServer(ScriptedServer):
    """Gemini API v1beta: scripted `streamGenerateContent` turns, side calls answered aside."""

    def __init__(self) -> None:
        super().__init__()
        self.turn_times: list[float] = []  # time.monotonic() when each turn request arrived

    def answer(self, handler: BaseHTTPRequestHandler, request: Request) -> None:
        match = _ACTION.match(request.path)
        if request.method == "GET" and request.path.startswith(("/v1beta/models", "/v1/models")):
            send_json(handler, {"models": [{"name": "models/gemini-2.5-flash", "supportedGenerationMethods":
                                            ["generateContent", "streamGenerateContent", "countTokens"]}]})
            return
        if match is None:
            send_json(handler, {"error": {"code": 404, "message": f"not scripted: {request.path}",
                                          "status": "NOT_FOUND"}}, status=404)
            return
        model, action = match.groups()
        if action == "streamGenerateContent":
            self.turn_times.append(time.monotonic())
            send_sse(handler, [(None, chunk) for chunk in self.turn_chunks(self.next_turn(), model)])
        elif action == "generateContent":
            send_json(handler, self.side_answer(request, model))
        elif action == "countTokens":
            send_json(handler, {"totalTokens": 100})
        else:
            send_json(handler, {"error": {"code": 404, "message": f"not scripted: {action}",
                                          "status": "NOT_FOUND"}}, status=404)

    @staticmethod
    def turn_chunks(turn: Turn, model: str) -> list[dict[str, Any]]:
        chunks = []
        if turn.text:
            chunks.append(_chunk([{"text": turn.text}], model, None if turn.tool else "STOP"))
        if turn.tool:
            call = {"functionCall": {"name": turn.tool, "args": turn.args}}
            chunks.append(_chunk([call], model, "STOP"))
        return chunks or [_chunk([{"text": ""}], model, "STOP")]

    @staticmethod
    def side_answer(request: Request, model: str) -> dict[str, Any]:
        """A side call's answer: JSON the CLI's helpers accept (they fall back on anything else)."""
        # the model router's classifiers (0.61: complexity_*; earlier: model_choice) and the
        # next-speaker check; every other helper takes text it cannot use as "no answer"
        text = json.dumps({"complexity_reasoning": "scripted", "complexity_score": 1, "reasoning": "scripted",
                           "model_choice": "flash", "next_speaker": "user"})
        return _chunk([{"text": text}], model, "STOP")

    def model_requests(self) -> list[Request]:
        """The requests that asked the model for a turn of the conversation, in order."""
        return [r for r in self.requests if ":streamGenerateContent" in r.path]
