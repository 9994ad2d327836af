"""The LLM gateway: every model call memcli makes goes through here.

API (all a caller needs):

    gw = Gateway.from_config(workspace, role="extract" | "consolidation", model=None)
    obj, usage = gw.structured(messages, SomePydanticModel)     # validated, re-asked when invalid
    turn = gw.chat(messages, tools)   # ChatTurn(content, tool_calls, usage, message) for agent loops
    usage.prompt_tokens, usage.completion_tokens, usage.cost_usd, usage.calls

Model: `--model` > config `memory.extract_model` / `memory.consolidation_model` > env
`MEMCLI_EXTRACT_MODEL` / `MEMCLI_CONSOLIDATION_MODEL`. Any litellm model string works and keys come
from litellm's usual environment variables (`OPENAI_API_KEY`, `OPENAI_API_BASE` for any
OpenAI-compatible server with `openai/<name>`, `ANTHROPIC_API_KEY`, `ollama/<name>` ...); config
`memory.api_base` overrides the base URL.

Why memcli owns the retry loop (litellm's and the OpenAI client's own retries are switched off):
one bounded, configurable policy for 429 / 5xx / timeouts / connection errors, so tests can use
tiny backoffs and a 429 storm ends in one clear error instead of minutes of hidden retries.

Structured output degrades across servers: `response_format` json_schema → json_object with the
schema (llama.cpp's server refuses json_schema) → plain prompt-instructed JSON. Whatever the
mode, the answer is parsed tolerantly (prose or code fences around the object are ignored) and
validated by pydantic; an invalid answer is re-asked a bounded number of times with the error.

Every call (successful or not) appends one JSON line — model, tokens, cost, outcome — to
`<state dir>/llm-calls.jsonl`. litellm is imported lazily with its network price-map fetch and
telemetry off: `memcli lint` and `--help` never import it.

litellm is the optional `llm` extra. It takes seconds to import, so a model command calls
`preload()` first thing: the import runs in a background thread while the command plans and
redacts, and the first `Gateway` waits for it. Without the extra, making a `Gateway` fails with
`MissingExtra` (exit 2), whose message is the install line to run.

Context window: `context_tokens` is config `memory.context_tokens`, else litellm's
`max_input_tokens` for the model, else DEFAULT_CONTEXT. One rule holds on every call: the prompt
(memcli.tokens' estimate, which errs high) plus `max_tokens` is at most the window. A call whose
prompt leaves less than the `max_tokens` it asks for is sent with `max_tokens` shrunk to what is
left, down to `answer_floor` of it; below that it raises ContextExceeded instead of being sent,
because a server that truncates a prompt silently (Ollama does) answers a constrained prompt with
valid, empty JSON. Ollama gets the window as `num_ctx`.
"""

from __future__ import annotations

import datetime as dt
import importlib.util
import json
import os
import random
import re
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from pydantic import BaseModel, ValidationError

from memcli.errors import EXIT_USAGE, ConfigError, MemcliError

if TYPE_CHECKING:
    from memcli.workspace import Workspace

Role = Literal["extract", "consolidation"]
M = TypeVar("M", bound=BaseModel)
RUN_LOG = "llm-calls.jsonl"
_MODES = ("json_schema", "json_object", "prompt")
_MODEL_ENV = {"extract": "MEMCLI_EXTRACT_MODEL", "consolidation": "MEMCLI_CONSOLIDATION_MODEL"}
DEFAULT_CONTEXT = 8192  # a model litellm does not know: small local models start at 8k
ANSWER_FLOOR = 256  # tokens: the least room an answer is ever sent with (a tool call, a short object)
# Providers that take the context size per request (Ollama's default is far below most models').
NUM_CTX_PROVIDERS = ("ollama", "ollama_chat")


INSTALL_LINE = 'pip install "memcli[llm]"'


class MissingExtra(MemcliError):
    """litellm is not installed: the model commands need the `llm` extra."""

    exit_code = EXIT_USAGE


class LLMError(MemcliError):
    """The model could not be reached or answered unusably; the message says what to fix."""


class RequestRefused(LLMError):
    """The server rejected the request itself (HTTP 400): unsupported parameter, context too long."""

    def __init__(self, message: str, context_window: bool = False) -> None:
        super().__init__(message)
        self.context_window = context_window


class ContextExceeded(RequestRefused):
    """The prompt leaves less of the model's context window than the answer's floor; it was not sent."""

    def __init__(self, message: str, prompt_tokens: int = 0, floor: int = 0) -> None:
        super().__init__(message, context_window=True)
        self.prompt_tokens, self.floor = prompt_tokens, floor


class InvalidOutput(LLMError):
    """The model kept answering something that does not validate. Carries the tokens spent."""

    def __init__(self, message: str, usage: CallUsage) -> None:
        super().__init__(message)
        self.usage = usage


@dataclass(frozen=True)
class CallUsage:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = None
    calls: int = 0

    def __add__(self, other: CallUsage) -> CallUsage:
        cost = None if self.cost_usd is None and other.cost_usd is None else (
            (self.cost_usd or 0.0) + (other.cost_usd or 0.0))
        return CallUsage(self.prompt_tokens + other.prompt_tokens,
                         self.completion_tokens + other.completion_tokens, cost, self.calls + other.calls)


@dataclass(frozen=True)
class ToolCallRequest:
    id: str
    name: str
    arguments: dict[str, Any] | str  # the raw string when the model sent malformed JSON


@dataclass(frozen=True)
class ChatTurn:
    content: str | None
    tool_calls: tuple[ToolCallRequest, ...]
    usage: CallUsage
    message: dict[str, Any]  # the assistant message, ready to append to the conversation


def resolve_model(workspace: Workspace, role: Role, model: str | None = None) -> str:
    """The model a command uses (no key check, no litellm import): flag > config > env."""
    mem = workspace.config.memory
    configured = mem.extract_model if role == "extract" else mem.consolidation_model
    chosen = model or configured or os.environ.get(_MODEL_ENV[role])
    if not chosen:
        key = "extract_model" if role == "extract" else "consolidation_model"
        raise ConfigError(
            f"no model for {role}: set memory.{key} in memcli.toml, {_MODEL_ENV[role]}, or pass "
            "--model (any litellm model, e.g. openai/gpt-4o-mini with OPENAI_API_KEY)")
    return chosen


def takes_num_ctx(model: str) -> bool:
    return model.split("/", 1)[0] in NUM_CTX_PROVIDERS


def context_tokens(workspace: Workspace, model: str) -> int:
    """The context window used for `model`: config, else litellm's knowledge, else DEFAULT_CONTEXT.
    Imports litellm only when the config does not say (model commands only)."""
    configured = workspace.config.memory.context_tokens
    return configured if configured is not None else known_context(model) or DEFAULT_CONTEXT


def known_context(model: str) -> int | None:
    """litellm's `max_input_tokens` for the model, None when it does not know it. Not asked for
    Ollama: litellm would query the server, whose answer is the model's trained maximum, not a
    window it allocates (memcli sets that through num_ctx, so a small default is the safe one)."""
    if takes_num_ctx(model):
        return None
    litellm = _litellm()
    try:
        size = litellm.get_model_info(model).get("max_input_tokens")
    except Exception:  # litellm's answer to a model it has no entry for (local, self-hosted, new)
        return None
    return int(size) if isinstance(size, int) and size > 0 else None


def answer_floor(requested: int) -> int:
    """The least `max_tokens` a call that asks for `requested` is sent with: a quarter of it, at least
    ANSWER_FLOOR (and never more than asked)."""
    return min(requested, max(ANSWER_FLOOR, requested // 4))


def estimate_prompt(messages: list[dict[str, Any]], params: dict[str, Any]) -> int:
    """The prompt's tokens as memcli.tokens estimates them (errs high): message texts, tool calls,
    tool schemas and a response schema, plus a few tokens of framing per message."""
    from memcli.tokens import EstimateCounter

    count = EstimateCounter().count
    total = 0
    for msg in messages:
        content = msg.get("content")
        if isinstance(content, list):  # content parts
            content = " ".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
        total += 4 + count(content or "")
        for call in msg.get("tool_calls") or []:
            fn = call.get("function", {})
            total += count(str(fn.get("name", ""))) + count(str(fn.get("arguments", "")))
    for key in ("tools", "response_format"):
        if params.get(key):
            total += count(json.dumps(params[key], ensure_ascii=False))
    return total


_import_lock = threading.Lock()
_preloading: threading.Thread | None = None


def preload() -> None:
    """Start importing litellm in the background (a no-op when it is not installed or already
    loading), so the seconds it takes overlap with the work that does not need it."""
    global _preloading
    with _import_lock:
        if _preloading is not None or importlib.util.find_spec("litellm") is None:
            return
        _preloading = threading.Thread(target=_quiet_import, name="memcli-litellm-import", daemon=True)
        _preloading.start()


def _quiet_import() -> None:
    try:
        _litellm()
    except Exception:  # noqa: S110 - not here: the Gateway's own import reports it in the main thread
        pass


def _litellm() -> Any:
    """Import litellm without its surprise network fetch, telemetry or help banners."""
    with _import_lock:
        os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        os.environ.setdefault("LITELLM_TELEMETRY", "False")
        loading = _preloading is not None and _preloading.is_alive()
    if loading and threading.current_thread() is not _preloading:
        from memcli.progress import note

        note("loading the model library (litellm)…")
    # Outside the lock: Python's own per-module import lock makes a second importer wait for the
    # first (the background preload) and then reuse the module.
    try:
        import litellm
    except ModuleNotFoundError as exc:
        if exc.name is None or exc.name.split(".")[0] != "litellm":
            raise  # litellm is there but broken: a bug to report, not a missing extra
        raise MissingExtra("extract and consolidate call a model through litellm, which is not "
                           f"installed: {INSTALL_LINE}") from None
    litellm.telemetry = False
    litellm.suppress_debug_info = True
    litellm.set_verbose = False
    litellm.callbacks, litellm.success_callback, litellm.failure_callback = [], [], []
    return litellm


def embed(model: str, texts: list[str], *, api_base: str | None = None, timeout_s: float = 30.0,
          input_type: str | None = None) -> list[list[float]]:
    """One embedding call (litellm, any provider): a vector per text, in order. `input_type` is
    sent only when given (providers that do not know it may refuse it). Errors are raised as
    LLMError with a one-line reason; the caller decides whether to go on without vectors."""
    litellm = _litellm()
    import openai

    try:
        extra = {"input_type": input_type} if input_type else {}
        response = litellm.embedding(model=model, input=texts, api_base=api_base, timeout=timeout_s,
                                     num_retries=0, **extra)
    except (litellm.APIError, litellm.APIConnectionError, litellm.Timeout, openai.OpenAIError,
            litellm.BadRequestError) as exc:  # every provider error litellm maps
        raise LLMError(f"embedding model {model}: {_short(exc)}") from None
    data = sorted(response.data, key=lambda d: d["index"] if isinstance(d, dict) else d.index)
    vectors = [list(d["embedding"] if isinstance(d, dict) else d.embedding) for d in data]
    if len(vectors) != len(texts):
        raise LLMError(f"embedding model {model}: {len(vectors)} vectors for {len(texts)} texts")
    return vectors


@dataclass
class Gateway:
    model: str
    role: str = "extract"
    api_base: str | None = None
    timeout_s: float = 120.0
    retries: int = 4
    backoff_s: float = 2.0
    backoff_max_s: float = 30.0
    repair_attempts: int = 2
    structured_mode: str = "auto"
    run_log: Path | None = None
    context_tokens: int = DEFAULT_CONTEXT
    _mode: str = field(default="json_schema", init=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    def __post_init__(self) -> None:
        if self.structured_mode != "auto":
            self._mode = self.structured_mode

    @classmethod
    def from_config(cls, workspace: Workspace, role: Role = "extract", model: str | None = None) -> Gateway:
        mem = workspace.config.memory
        chosen = resolve_model(workspace, role, model)
        timeout = workspace.config.extract.timeout_s if role == "extract" else mem.timeout_s
        repair = workspace.config.extract.max_retries if role == "extract" else mem.repair_attempts
        gw = cls(chosen, role, mem.api_base, timeout, mem.retries, mem.backoff_s, mem.backoff_max_s,
                 repair, mem.structured_output, workspace.state_dir / RUN_LOG)
        gw.check_environment()
        gw.context_tokens = context_tokens(workspace, chosen)
        return gw

    # -- preflight -----------------------------------------------------------------------------
    def check_environment(self) -> None:
        """Fail early, in one line, on an unknown provider or a missing key."""
        litellm = _litellm()
        try:
            _, provider, _, _ = litellm.get_llm_provider(self.model, api_base=self.api_base)
        except litellm.BadRequestError:  # litellm's answer to an unknown provider prefix
            raise ConfigError(
                f"unknown model {self.model!r}: use a litellm model string with a provider prefix, "
                "e.g. openai/gpt-4o-mini, anthropic/claude-3-5-haiku-latest, ollama/qwen2.5") from None
        missing = [k for k in litellm.validate_environment(self.model).get("missing_keys", [])
                   if not k.endswith("_API_BASE")]  # a base URL has a default (e.g. Ollama's)
        if missing:
            hint = " (a local server without auth accepts any value)" if provider == "openai" else ""
            raise ConfigError(f"model {self.model} needs {', '.join(missing)} in the environment{hint}")

    # -- the two call shapes -------------------------------------------------------------------
    def structured(self, messages: list[dict[str, Any]], schema: type[M], *,
                   max_tokens: int | None = None) -> tuple[M, CallUsage]:
        """One validated object of `schema` (in at most `max_tokens`, when given); re-asks with the
        validation error, then InvalidOutput."""
        usage = CallUsage()
        convo = list(messages)
        problem = ""
        for _ in range(self.repair_attempts + 1):
            response, used = self._structured_call(convo, schema, max_tokens)
            usage += used
            content = _content(response)
            try:
                return schema.model_validate(extract_json(content)), usage
            except (ValueError, ValidationError) as exc:
                problem = describe_invalid(exc)
            convo = [*messages, {"role": "assistant", "content": content[:4000]},
                     {"role": "user", "content": f"That answer was invalid: {problem}. Answer again "
                      "with only the JSON object, exactly as the schema says (no other keys)."}]
        raise InvalidOutput(f"model {self.model} gave no valid answer after "
                            f"{self.repair_attempts + 1} tries: {problem}", usage)

    def chat(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None,
             **params: Any) -> ChatTurn:
        """One assistant turn, possibly calling tools (OpenAI tool format)."""
        if tools:
            params["tools"] = tools
        response, usage = self._call(messages, params)
        msg = response.choices[0].message
        calls = []
        for tc in msg.tool_calls or []:
            raw = tc.function.arguments or ""
            try:
                args: dict[str, Any] | str = json.loads(raw) if raw.strip() else {}
            except ValueError:
                args = raw
            calls.append(ToolCallRequest(tc.id, tc.function.name, args))
        message: dict[str, Any] = {"role": "assistant", "content": msg.content}
        if msg.tool_calls:
            message["tool_calls"] = [
                {"id": tc.id, "type": "function",
                 "function": {"name": tc.function.name, "arguments": tc.function.arguments}}
                for tc in msg.tool_calls]
        return ChatTurn(msg.content, tuple(calls), usage, message)

    # -- internals -----------------------------------------------------------------------------
    def _structured_call(
        self, messages: list[dict[str, Any]], schema: type[BaseModel], max_tokens: int | None = None
    ) -> tuple[Any, CallUsage]:
        json_schema = schema.model_json_schema()
        while True:
            mode = self._mode
            params: dict[str, Any] = {} if max_tokens is None else {"max_tokens": max_tokens}
            sent = messages
            if mode == "json_schema":
                params["response_format"] = {"type": "json_schema", "json_schema": {
                    "name": schema.__name__, "schema": json_schema, "strict": False}}
            else:
                if mode == "json_object":
                    params["response_format"] = {"type": "json_object", "schema": json_schema}
                sent = [*messages, {"role": "user", "content": "Answer with one JSON object only, valid "
                        "against this JSON Schema:\n" + json.dumps(json_schema, ensure_ascii=False)}]
            try:
                return self._call(sent, params)
            except RequestRefused as exc:
                if exc.context_window or mode == "prompt" or self.structured_mode != "auto":
                    raise
                with self._lock:  # remember the downgrade for every later call of this run
                    if self._mode == mode:
                        self._mode = _MODES[_MODES.index(mode) + 1]

    def _call(self, messages: list[dict[str, Any]], params: dict[str, Any]) -> tuple[Any, CallUsage]:
        litellm = _litellm()
        import openai  # litellm's own dependency; the base class of every error it raises
        retryable = (litellm.RateLimitError, litellm.Timeout, litellm.APIConnectionError,
                     litellm.InternalServerError, litellm.ServiceUnavailableError, litellm.BadGatewayError)
        if takes_num_ctx(self.model):
            params = {**params, "num_ctx": self.context_tokens}
        params = self._fit(messages, params)
        attempt = 0
        while True:
            started = time.monotonic()
            try:
                response = litellm.completion(
                    model=self.model, messages=messages, api_base=self.api_base, timeout=self.timeout_s,
                    max_retries=0, num_retries=0, **params)
            except (litellm.AuthenticationError, litellm.PermissionDeniedError) as exc:
                self._log(params, started, None, f"auth: {_short(exc)}")
                raise LLMError(f"model {self.model}: the provider rejected the key ({_short(exc)}); "
                               "check the provider's API key environment variable") from None
            except litellm.NotFoundError as exc:
                self._log(params, started, None, f"not-found: {_short(exc)}")
                raise LLMError(f"model {self.model} not found on the server ({_short(exc)}); "
                               "check memory.*_model / --model") from None
            except (litellm.BadRequestError, litellm.UnsupportedParamsError) as exc:
                self._log(params, started, None, f"refused: {_short(exc)}")
                raise RequestRefused(f"model {self.model} refused the request: {_short(exc)}",
                                     isinstance(exc, litellm.ContextWindowExceededError)) from None
            except retryable as exc:
                self._log(params, started, None, f"{type(exc).__name__}: {_short(exc)}")
                if _refuses_response_format(exc, params):
                    # llama.cpp's server rejects json_schema with a 500 carrying its validation
                    # error: retrying cannot help, degrading the output mode does.
                    raise RequestRefused(f"model {self.model} refused the request: {_short(exc)}",
                                         False) from None
                if "missing credentials" in str(exc).lower():  # the OpenAI client's own key check
                    raise LLMError(f"model {self.model} needs an API key: {_short(exc)}") from None
                # A refused connection rarely heals within a backoff: one retry, then say so.
                limit = min(self.retries, 1) if _unreachable(exc) else self.retries
                if attempt >= limit:
                    raise LLMError(_give_up(self, exc, attempt + 1)) from None
                time.sleep(self._backoff(attempt))
                attempt += 1
                continue
            except litellm.APIError as exc:
                # litellm's catch-all: unparseable bodies from a broken server, unmapped statuses.
                self._log(params, started, None, f"api-error: {_short(exc)}")
                if _refuses_response_format(exc, params):
                    raise RequestRefused(f"model {self.model} refused the request: {_short(exc)}",
                                         False) from None
                status = getattr(exc, "status_code", None)
                if status in (401, 403):
                    raise LLMError(f"model {self.model}: the provider rejected the key ({_short(exc)}); "
                                   "check the provider's API key environment variable") from None
                if isinstance(status, int) and 400 <= status < 500 and status not in (408, 409):
                    raise LLMError(f"model {self.model} failed: HTTP {status}: {_short(exc)}") from None
                if attempt >= self.retries:
                    raise LLMError(_give_up(self, exc, attempt + 1)) from None
                time.sleep(self._backoff(attempt))
                attempt += 1
                continue
            except openai.OpenAIError as exc:  # every other provider error litellm maps (422, policy...)
                self._log(params, started, None, f"{type(exc).__name__}: {_short(exc)}")
                raise LLMError(f"model {self.model} failed: {type(exc).__name__}: {_short(exc)}") from None
            usage = self._usage(litellm, response)
            self._log(params, started, usage, None)
            return response, usage

    def _fit(self, messages: list[dict[str, Any]], params: dict[str, Any]) -> dict[str, Any]:
        """`params` for a call that keeps prompt + max_tokens within the window: max_tokens shrunk
        to what the prompt leaves, down to its floor. Below that the call is not sent."""
        tokens = estimate_prompt(messages, params)
        asked = params.get("max_tokens")
        room = self.context_tokens - tokens
        floor = 1 if asked is None else answer_floor(int(asked))
        if room >= floor:
            return params if asked is None or room >= asked else {**params, "max_tokens": room}
        window = f"the context window of model {self.model} ({self.context_tokens} tokens)"
        problem = (f"the prompt is about {tokens} tokens, at or over {window}" if asked is None else
                   f"the prompt is about {tokens} tokens and leaves {max(room, 0)} of {window} for the "
                   f"answer, less than the {floor} it needs at least")
        problem += "; it was not sent (memory.context_tokens sets the window)"
        self._log(params, time.monotonic(), None, f"context: {problem}")
        raise ContextExceeded(problem, tokens, floor)

    def _backoff(self, attempt: int) -> float:
        return min(self.backoff_max_s, self.backoff_s * 2**attempt) * (0.5 + random.random() / 2)

    def _usage(self, litellm: Any, response: Any) -> CallUsage:
        raw = getattr(response, "usage", None)
        cost: float | None = None
        try:
            cost = float(litellm.completion_cost(completion_response=response))
        except Exception:  # unknown price (local or self-hosted model): cost is simply not known
            cost = None
        return CallUsage(int(getattr(raw, "prompt_tokens", 0) or 0),
                         int(getattr(raw, "completion_tokens", 0) or 0), cost, 1)

    def _log(self, params: dict[str, Any], started: float, usage: CallUsage | None,
             error: str | None) -> None:
        if self.run_log is None:
            return
        # What this call sent, not the gateway's current mode (a chat with tools has none; another
        # thread may have degraded the mode since this call was built).
        mode = "tools" if "tools" in params else params.get("response_format", {}).get("type", "prompt")
        row = {"time": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"), "role": self.role,
               "model": self.model, "mode": mode, "seconds": round(time.monotonic() - started, 3),
               "ok": error is None, "error": error,
               "prompt_tokens": usage.prompt_tokens if usage else 0,
               "completion_tokens": usage.completion_tokens if usage else 0,
               "cost_usd": usage.cost_usd if usage else None}
        line = json.dumps(row, ensure_ascii=False) + "\n"
        with self._lock:  # one write per line in append mode: concurrent calls never interleave
            self.run_log.parent.mkdir(parents=True, exist_ok=True)
            with self.run_log.open("a", encoding="utf-8") as fh:
                fh.write(line)


def _content(response: Any) -> str:
    return response.choices[0].message.content or ""


def _short(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    for prefix in ("litellm.", "OpenAIException - "):
        text = text.replace(prefix, "")
    return re.sub(r"^(?:\w+(?:Error|Exception|Timeout): )+", "", text)[:300]


def _unreachable(exc: BaseException) -> bool:
    # litellm reports a refused connection as InternalServerError("Connection error.")
    return type(exc).__name__ == "APIConnectionError" or "connection error" in str(exc).lower()


def _give_up(gw: Gateway, exc: BaseException, tries: int) -> str:
    name = type(exc).__name__
    if _unreachable(exc):
        where = gw.api_base or os.environ.get("OPENAI_API_BASE") or "the provider"
        return (f"cannot reach {where} for model {gw.model} after {tries} tries ({_short(exc)}); "
                "is the server running? (memory.api_base / OPENAI_API_BASE)")
    if name == "Timeout":
        return f"model {gw.model} timed out {tries} times (timeout {gw.timeout_s:g}s)"
    return f"model {gw.model} failed {tries} times ({name}: {_short(exc)})"


def extract_json(text: str) -> Any:
    """The JSON object in a model answer, tolerating prose and code fences around it."""
    stripped = text.strip()
    try:
        return json.loads(stripped)
    except ValueError:
        pass
    decoder = json.JSONDecoder()
    pos = stripped.find("{")
    while pos != -1:
        try:
            obj, _ = decoder.raw_decode(stripped, pos)
        except ValueError:
            pos = stripped.find("{", pos + 1)
            continue
        if isinstance(obj, dict):
            return obj
        pos = stripped.find("{", pos + 1)
    raise ValueError("the answer holds no JSON object")


def describe_invalid(exc: Exception) -> str:
    """A short, one-line account of why an answer failed validation."""
    if isinstance(exc, ValidationError):
        parts = [f"{'.'.join(str(p) for p in e['loc']) or '(root)'}: {e['msg']}" for e in exc.errors()[:3]]
        more = exc.error_count() - 3
        return "; ".join(parts) + (f" (+{more} more)" if more > 0 else "")
    return str(exc)[:200]


def _refuses_response_format(exc: BaseException, params: dict[str, Any]) -> bool:
    """A server error that names the `response_format` we sent is a refusal of that output mode,
    whatever its status code (llama.cpp answers 500), not a transient failure."""
    return "response_format" in params and "response_format" in str(exc)
