"""The base of the scripted model servers the real agents talk to in tests/e2e.

Each agent speaks its own API (Claude Code: Anthropic Messages; Codex: OpenAI Responses; Gemini CLI:
the Gemini API), so each has a subclass that turns a scripted `Turn` into that API's (streaming) body.
What they share lives here: a threaded HTTP server on 127.0.0.1 on a free port, a log of every request
(method, path, headers, parsed JSON body), and a queue of scripted turns — the agents' own traffic
(title generation, quota checks, counting tokens) is answered by the subclass without using the queue.

    server = AnthropicServer()              # a subclass
    server.script(Turn(tool="mcp__memcli__memcli_search", args={"query": "sqlite"}), Turn(text="done"))
    with server: ... run the agent with its base URL set to server.url ...
    server.model_requests()                 # the requests that asked the model for a turn
"""

from __future__ import annotations

import json
import threading
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Turn:
    """One scripted model turn: a tool call (`tool`, `args`) or plain text, or both (text first)."""

    text: str | None = None
    tool: str | None = None
    args: dict[str, Any] = field(default_factory=dict)


@dataclass
class Request:
    method: str
    path: str
    headers: dict[str, str]
    body: Any  # parsed JSON, or the raw text when it is not JSON


class ScriptedServer:
    """Subclasses implement `answer(handler, request) -> None`, writing the whole response."""

    def __init__(self) -> None:
        self.requests: list[Request] = []
        self._turns: deque[Turn] = deque()
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def script(self, *turns: Turn) -> None:
        with self._lock:
            self._turns.extend(turns)

    def next_turn(self, default: Turn | None = None) -> Turn:
        """The next scripted turn; when the script is spent, `default` (else a plain 'Done.')."""
        with self._lock:
            if self._turns:
                return self._turns.popleft()
        return default or Turn(text="Done.")

    def __enter__(self) -> ScriptedServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def answer(self, handler: BaseHTTPRequestHandler, request: Request) -> None:
        raise NotImplementedError

    def outside_requests(self) -> list[str]:
        """Hosts the agent tried to reach through the proxy (point HTTPS_PROXY at `url` to see them)."""
        return [r.path for r in self.requests if r.method == "CONNECT"]

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _handle(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body: Any = json.loads(raw) if raw else None
                except ValueError:
                    body = raw.decode("utf-8", "replace")
                request = Request(self.command, self.path, {k.lower(): v for k, v in self.headers.items()},
                                  body)
                with server._lock:
                    server.requests.append(request)
                server.answer(self, request)

            do_GET = do_POST = do_PUT = do_DELETE = _handle  # noqa: N815 - http.server's naming

            def do_CONNECT(self) -> None:  # noqa: N802 - an agent going past its base URL (via *_PROXY)
                with server._lock:
                    server.requests.append(Request("CONNECT", self.path, {}, None))
                self.send_response(403)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - quiet in tests
                pass

        return Handler


def send_json(handler: BaseHTTPRequestHandler, body: Any, status: int = 200) -> None:
    data = json.dumps(body).encode()
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)


def send_sse(handler: BaseHTTPRequestHandler, events: list[tuple[str | None, Any]]) -> None:
    """A complete text/event-stream response: `(event name or None, JSON data)` per event."""
    chunks = []
    for name, data in events:
        head = f"event: {name}\n" if name else ""
        chunks.append(f"{head}data: {json.dumps(data)}\n\n")
    payload = "".join(chunks).encode()
    handler.send_response(200)
    handler.send_header("Content-Type", "text/event-stream")
    handler.send_header("Cache-Control", "no-cache")
    handler.send_header("Content-Length", str(len(payload)))
    handler.end_headers()
    handler.wfile.write(payload)
