"""A scripted OpenAI-compatible HTTP server on 127.0.0.1 for LLM tests.

Tests never patch memcli's model code: litellm talks real HTTP to this server, which replays a
queue of scripted replies and records every request body. Use the `fake_llm` fixture:

    def test_x(fake_llm):
        fake_llm.push_json({"decisions": [], ...})      # message content = that JSON
        fake_llm.push(Reply(status=429), Reply(content="hi"))
        fake_llm.push(Reply(tool_calls=[tool_call("memory_read", {"slug": "x"})]))
        fake_llm.push(Reply(delay=30))                   # hangs longer than the client timeout
        fake_llm.push(Reply(raw_body="{not json"))       # malformed HTTP body
        ... run memcli against model "openai/fake" (the fixture sets OPENAI_API_BASE/KEY) ...
        fake_llm.requests[0]["messages"]                 # what was sent, after redaction

`POST /v1/embeddings` answers with `embedder(text) -> list[float]` for each input (default: a
hashed bag of words, so equal words give close vectors), or with HTTP `embedding_error` when set;
its requests are recorded in `embedding_requests`, not in `requests`.

When the queue is empty, `responder(request_body) -> Reply` answers (default: `{}` as content,
i.e. an empty structured answer). `refuse_json_schema = True` makes the server answer a
`response_format` of type `json_schema` exactly as llama.cpp's server does (HTTP 500 with a
request-validation error).

Ollama's native API is served too (`POST /api/chat`, `/api/generate`, and `/api/show` for
litellm's model lookups): a model `ollama_chat/<name>` or `ollama/<name>` with `api_base` set to
`fake.url_root` gets the same scripted replies in Ollama's body format, and its request bodies
(with `options.num_ctx`) are recorded in `requests` like the others.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

FAKE_MODEL = "openai/fake-model"
FAKE_KEY = "sk-fake-test-key-not-secret"


@dataclass
class Reply:
    """One scripted answer. `raw_body` (str) replaces the whole HTTP body; `delay` sleeps first."""

    status: int = 200
    content: str | None = None
    tool_calls: list[dict[str, Any]] | None = None
    raw_body: str | None = None
    delay: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)
    usage: dict[str, int] | None = None
    error_message: str = "scripted error"


def tool_call(name: str, arguments: dict[str, Any] | str, call_id: str | None = None) -> dict[str, Any]:
    """One OpenAI tool call, as the assistant message carries it."""
    args = arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)
    return {
        "id": call_id or f"call_{name}_{abs(hash(args)) % 10**8}",
        "type": "function",
        "function": {"name": name, "arguments": args},
    }


_LLAMA_CPP_REFUSAL = (
    "1 validation error:\n  {'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), "
    "'msg': \"Input should be 'text' or 'json_object'\", 'input': 'json_schema', "
    "'ctx': {'expected': \"'text' or 'json_object'\"}}"
)


def _default_responder(body: dict[str, Any]) -> Reply:
    return Reply(content="{}")


def bag_of_words(text: str, dims: int = 64) -> list[float]:
    """A deterministic stand-in for an embedding: word counts hashed into `dims` buckets."""
    import zlib

    vec = [0.0] * dims
    for word in text.lower().split():
        vec[zlib.crc32(word.encode()) % dims] += 1.0
    return vec


class FakeLLM:
    def __init__(self) -> None:
        self._queue: deque[Reply] = deque()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self.requests: list[dict[str, Any]] = []  # parsed JSON request bodies, in arrival order
        self.paths: list[str] = []
        self.headers: list[dict[str, str]] = []
        self.responder: Callable[[dict[str, Any]], Reply] = _default_responder
        self.refuse_json_schema = False
        self.in_flight = 0
        self.max_in_flight = 0  # the most requests served at once (concurrency bounds)
        self.refuse_json_object = False
        self.embedder: Callable[[str], list[float]] = bag_of_words
        self.embedding_error: int | None = None
        self.embedding_requests: list[dict[str, Any]] = []
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.02,), daemon=True)

    # -- scripting ---------------------------------------------------------------------------
    @property
    def url(self) -> str:
        """The api base to give litellm (`.../v1`)."""
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    @property
    def url_root(self) -> str:
        """The api base for Ollama models (its API lives at `/api/...`, not under `/v1`)."""
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def push(self, *replies: Reply) -> None:
        with self._lock:
            self._queue.extend(replies)

    def push_json(self, obj: Any, **kw: Any) -> None:
        self.push(Reply(content=json.dumps(obj, ensure_ascii=False), **kw))

    def push_text(self, text: str, **kw: Any) -> None:
        self.push(Reply(content=text, **kw))

    def pending(self) -> int:
        with self._lock:
            return len(self._queue)

    @property
    def calls(self) -> int:
        with self._lock:
            return len(self.requests)

    def sent_text(self) -> str:
        """Everything the client sent, as one string (for 'no secret left the machine' checks)."""
        with self._lock:
            return "\n".join(json.dumps(r, ensure_ascii=False) for r in self.requests)

    # -- lifecycle ---------------------------------------------------------------------------
    def start(self) -> FakeLLM:
        self._thread.start()
        return self

    def close(self) -> None:
        self._stop.set()  # wakes handlers that are 'hanging'
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> FakeLLM:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- serving -----------------------------------------------------------------------------
    def _next_reply(self, body: dict[str, Any]) -> Reply:
        fmt = body.get("response_format") if isinstance(body, dict) else None
        fmt_type = fmt.get("type") if isinstance(fmt, dict) else None
        if self.refuse_json_schema and fmt_type == "json_schema":
            # Exactly what llama-cpp-python's server answers (seen against the real server): a 500
            # carrying its request-validation error, not a 400.
            return Reply(status=500, error_message=_LLAMA_CPP_REFUSAL)
        if self.refuse_json_object and fmt_type == "json_object":
            return Reply(status=400, error_message="response_format type json_object is not supported")
        with self._lock:
            if self._queue:
                return self._queue.popleft()
        return self.responder(body)

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # keep pytest output clean
                pass

            def do_GET(self) -> None:  # /v1/models, for clients that probe
                self._send(200, json.dumps({"object": "list", "data": [{"id": "fake-model"}]}))

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                path = self.path.split("?", 1)[0].rstrip("/")
                if path in ("/v1/embeddings", "/embeddings"):
                    self._embeddings(raw)
                    return
                if path == "/api/show":  # litellm's model lookup for Ollama: nothing known
                    self._send(200, json.dumps({"model_info": {}, "template": "", "parameters": ""}))
                    return
                if path not in ("/v1/chat/completions", "/chat/completions", "/api/chat", "/api/generate"):
                    self._send(404, json.dumps({"error": {"message": f"no route {path}"}}))
                    return
                try:
                    body = json.loads(raw)
                except ValueError:
                    body = {"_unparsed": raw.decode("utf-8", "replace")}
                with fake._lock:
                    fake.requests.append(body)
                    fake.paths.append(path)
                    fake.headers.append(dict(self.headers.items()))
                reply = fake._next_reply(body)
                with fake._lock:
                    fake.in_flight += 1
                    fake.max_in_flight = max(fake.max_in_flight, fake.in_flight)
                try:
                    if reply.delay and fake._stop.wait(reply.delay):
                        return
                    ollama = path.startswith("/api/")
                    text = _render_ollama(reply, body, path) if ollama else _render(reply, body)
                    self._send(reply.status, text, reply.headers)
                finally:
                    with fake._lock:
                        fake.in_flight -= 1

            def _embeddings(self, raw: bytes) -> None:
                body = json.loads(raw)
                texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
                with fake._lock:
                    fake.embedding_requests.append(body)
                if fake.embedding_error:
                    self._send(fake.embedding_error, json.dumps(
                        {"error": {"message": "scripted embedding error", "code": fake.embedding_error}}))
                    return
                data = [{"object": "embedding", "index": i, "embedding": fake.embedder(t)}
                        for i, t in enumerate(texts)]
                tokens = sum(len(t.split()) for t in texts) or 1
                self._send(200, json.dumps({"object": "list", "data": data, "model": body.get("model"),
                                            "usage": {"prompt_tokens": tokens, "total_tokens": tokens}}))

            def _send(self, status: int, text: str, headers: dict[str, str] | None = None) -> None:
                data = text.encode("utf-8")
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for key, value in (headers or {}).items():
                        self.send_header(key, value)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client timed out and went away

        return Handler


def _render(reply: Reply, body: dict[str, Any]) -> str:
    if reply.raw_body is not None:
        return reply.raw_body
    if reply.status >= 400:
        kind = {429: "rate_limit_exceeded", 400: "invalid_request_error"}.get(reply.status, "server_error")
        return json.dumps({"error": {"message": reply.error_message, "type": kind, "code": reply.status}})
    message: dict[str, Any] = {"role": "assistant", "content": reply.content}
    if reply.tool_calls:
        message["tool_calls"] = reply.tool_calls
    sent = json.dumps(body.get("messages", []), ensure_ascii=False)
    usage = reply.usage or {
        "prompt_tokens": max(1, len(sent) // 4),
        "completion_tokens": max(1, len(reply.content or json.dumps(reply.tool_calls or "")) // 4),
    }
    usage = {**usage, "total_tokens": usage["prompt_tokens"] + usage["completion_tokens"]}
    return json.dumps(
        {
            "id": f"chatcmpl-fake-{time.monotonic_ns()}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", "fake-model"),
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": "tool_calls" if reply.tool_calls else "stop",
                }
            ],
            "usage": usage,
        },
        ensure_ascii=False,
    )


def _render_ollama(reply: Reply, body: dict[str, Any], path: str) -> str:
    """The reply in Ollama's native (non-streaming) body: `message` for /api/chat, `response` for
    /api/generate, token counts as prompt_eval_count / eval_count."""
    if reply.raw_body is not None:
        return reply.raw_body
    if reply.status >= 400:
        return json.dumps({"error": reply.error_message})
    sent = json.dumps(body.get("messages") or body.get("prompt") or "", ensure_ascii=False)
    out: dict[str, Any] = {"model": body.get("model", "fake-model"), "created_at": "2026-01-01T00:00:00Z",
                           "done": True, "done_reason": "stop", "prompt_eval_count": max(1, len(sent) // 4),
                           "eval_count": max(1, len(reply.content or "") // 4)}
    if path == "/api/generate":
        out["response"] = reply.content or ""
        return json.dumps(out, ensure_ascii=False)
    message: dict[str, Any] = {"role": "assistant", "content": reply.content or ""}
    if reply.tool_calls:
        message["tool_calls"] = [{"function": {"name": c["function"]["name"],
                                               "arguments": json.loads(c["function"]["arguments"] or "{}")}}
                                 for c in reply.tool_calls]
    out["message"] = message
    return json.dumps(out, ensure_ascii=False)


@pytest.fixture
def fake_llm(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeLLM]:
    """A started fake server; litellm's OpenAI env vars point at it, so model `openai/fake-model`
    (FAKE_MODEL) reaches it through the real request path with no config."""
    with FakeLLM() as fake:
        monkeypatch.setenv("OPENAI_API_BASE", fake.url)
        monkeypatch.setenv("OPENAI_BASE_URL", fake.url)
        monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
        yield fake
