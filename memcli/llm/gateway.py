"""The gateway: every chat and structured call memcli makes (see memcli.llm for the whole policy)."""

from __future__ import annotations

import json
import os
import random
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel, ValidationError

from memcli.errors import ConfigError
from memcli.llm.agentmodel import AgentGateway, is_agent_model
from memcli.llm.endpoint import Endpoint, Role, choose_model
from memcli.llm.errors import ContextExceeded, InvalidOutput, LLMError, RequestRefused
from memcli.llm.library import litellm, short, unreachable
from memcli.llm.models import (
    DEFAULT_CONTEXT,
    answer_floor,
    context_tokens,
    estimate_prompt,
    takes_num_ctx,
)
from memcli.llm.parsing import describe_invalid, extract_json
from memcli.llm.spend import RUN_LOG, log_call
from memcli.llm.usage import CallUsage, ChatTurn, ToolCallRequest

if TYPE_CHECKING:
    from memcli.workspace import Workspace

M = TypeVar("M", bound=BaseModel)
_MODES = ("json_schema", "json_object", "prompt")


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
    def from_config(cls, workspace: Workspace, role: Role = "extract", model: str | None = None,
                    *, session_agent: str | None = None) -> Gateway | AgentGateway:
        """The gateway to the model a step uses (memcli.llm.endpoint): a coding agent's
        (`agent/...`, memcli.llm.agentmodel: no litellm) or a litellm model's."""
        chosen = choose_model(workspace, role, model, session_agent=session_agent).model
        if is_agent_model(chosen):
            return AgentGateway.from_config(workspace, role, chosen)
        mem = workspace.config.memory
        end = Endpoint.for_role(workspace, role, chosen)
        repair = workspace.config.extract.max_retries if role == "extract" else mem.repair_attempts
        gw = cls(end.model, role, end.api_base, end.timeout_s, mem.retries, mem.backoff_s, mem.backoff_max_s,
                 repair, mem.structured_output, workspace.state_dir / RUN_LOG)
        gw.check_environment()
        gw.context_tokens = context_tokens(workspace, end.model)
        return gw

    # -- preflight -----------------------------------------------------------------------------
    def check_environment(self) -> None:
        """Fail early, in one line, on an unknown provider or a missing key."""
        library = litellm()
        try:
            _, provider, _, _ = library.get_llm_provider(self.model, api_base=self.api_base)
        except library.BadRequestError:  # litellm's answer to an unknown provider prefix
            raise ConfigError(
                f"unknown model {self.model!r}: use a litellm model string with a provider prefix, "
                "e.g. openai/gpt-4o-mini, anthropic/claude-3-5-haiku-latest, ollama/qwen2.5") from None
        missing = [k for k in library.validate_environment(self.model).get("missing_keys", [])
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
        library = litellm()
        import openai  # here: litellm's own dependency, loaded with it; the base class of its errors
        retryable = (library.RateLimitError, library.Timeout, library.APIConnectionError,
                     library.InternalServerError, library.ServiceUnavailableError, library.BadGatewayError)
        if takes_num_ctx(self.model):
            params = {**params, "num_ctx": self.context_tokens}
        params = self._fit(messages, params)
        attempt = 0
        while True:
            started = time.monotonic()
            try:
                response = library.completion(
                    model=self.model, messages=messages, api_base=self.api_base, timeout=self.timeout_s,
                    max_retries=0, num_retries=0, **params)
            except (library.AuthenticationError, library.PermissionDeniedError) as exc:
                self._log(params, started, None, f"auth: {short(exc)}")
                raise LLMError(f"model {self.model}: the provider rejected the key ({short(exc)}); "
                               "check the provider's API key environment variable") from None
            except library.NotFoundError as exc:
                self._log(params, started, None, f"not-found: {short(exc)}")
                raise LLMError(f"model {self.model} not found on the server ({short(exc)}); "
                               "check memory.*_model / --model") from None
            except (library.BadRequestError, library.UnsupportedParamsError) as exc:
                self._log(params, started, None, f"refused: {short(exc)}")
                raise RequestRefused(f"model {self.model} refused the request: {short(exc)}",
                                     isinstance(exc, library.ContextWindowExceededError)) from None
            except retryable as exc:
                self._log(params, started, None, f"{type(exc).__name__}: {short(exc)}")
                if _refuses_response_format(exc, params):
                    # llama.cpp's server rejects json_schema with a 500 carrying its validation
                    # error: retrying cannot help, degrading the output mode does.
                    raise RequestRefused(f"model {self.model} refused the request: {short(exc)}",
                                         False) from None
                if "missing credentials" in str(exc).lower():  # the OpenAI client's own key check
                    raise LLMError(f"model {self.model} needs an API key: {short(exc)}") from None
                # A refused connection rarely heals within a backoff, and a call that timed out has
                # already waited timeout_s (a local server still works on it): one retry, then say so.
                once = unreachable(exc) or isinstance(exc, library.Timeout)
                limit = min(self.retries, 1) if once else self.retries
                if attempt >= limit:
                    raise LLMError(_give_up(self, exc, attempt + 1)) from None
                time.sleep(self._backoff(attempt))
                attempt += 1
                continue
            except library.APIError as exc:
                # litellm's catch-all: unparseable bodies from a broken server, unmapped statuses.
                self._log(params, started, None, f"api-error: {short(exc)}")
                if _refuses_response_format(exc, params):
                    raise RequestRefused(f"model {self.model} refused the request: {short(exc)}",
                                         False) from None
                status = getattr(exc, "status_code", None)
                if status in (401, 403):
                    raise LLMError(f"model {self.model}: the provider rejected the key ({short(exc)}); "
                                   "check the provider's API key environment variable") from None
                if isinstance(status, int) and 400 <= status < 500 and status not in (408, 409):
                    raise LLMError(f"model {self.model} failed: HTTP {status}: {short(exc)}") from None
                if attempt >= self.retries:
                    raise LLMError(_give_up(self, exc, attempt + 1)) from None
                time.sleep(self._backoff(attempt))
                attempt += 1
                continue
            except openai.OpenAIError as exc:  # every other provider error litellm maps (422, policy...)
                self._log(params, started, None, f"{type(exc).__name__}: {short(exc)}")
                raise LLMError(f"model {self.model} failed: {type(exc).__name__}: {short(exc)}") from None
            usage = self._usage(library, response)
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

    def _usage(self, library: Any, response: Any) -> CallUsage:
        raw = getattr(response, "usage", None)
        cost: float | None = None
        try:
            cost = float(library.completion_cost(completion_response=response))
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
        log_call(self.run_log, role=self.role, model=self.model, mode=mode, started=started, usage=usage,
                 error=error)


def _content(response: Any) -> str:
    return response.choices[0].message.content or ""


def _where(gw: Gateway) -> str:
    """The URL the calls went to, as far as memcli knows it (litellm's own default otherwise)."""
    env = "OPENAI_API_BASE" if gw.model.split("/", 1)[0] == "openai" else None
    return gw.api_base or (env and os.environ.get(env)) or f"{gw.model.split('/', 1)[0]}'s API"


def _give_up(gw: Gateway, exc: BaseException, tries: int) -> str:
    name = type(exc).__name__
    if unreachable(exc):
        return (f"cannot reach {_where(gw)} for model {gw.model} after {tries} tries ({short(exc)}); "
                "is the server running? (memory.api_base / OPENAI_API_BASE)")
    if name == "Timeout":
        key = "extract.timeout_s" if gw.role == "extract" else "memory.timeout_s"
        return (f"model {gw.model} at {_where(gw)} did not answer within {gw.timeout_s:g}s, {tries} times "
                f"(a slow or overloaded server, or a prompt too long for it; {key} sets the wait)")
    return f"model {gw.model} failed {tries} times ({name}: {short(exc)})"


def _refuses_response_format(exc: BaseException, params: dict[str, Any]) -> bool:
    """A server error that names the `response_format` we sent is a refusal of that output mode,
    whatever its status code (llama.cpp answers 500), not a transient failure."""
    return "response_format" in params and "response_format" in str(exc)
