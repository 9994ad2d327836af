"""A coding agent as memcli's model: `agent/<name>[/<its model>]` runs the agent the user already
has (Claude Code, Codex ...) in its own headless mode, so extract, import and consolidate need no
separate model API key. No litellm: this works on the light install.

Every run starts the agent's executable (found on PATH) in an empty folder of its own, made for
the run and removed after it, with `MEMCLI_AGENT_RUN` set (memcli's hooks do nothing in such a
run, so it never captures itself, at any scope), with what its declaration's dialect
(memcli/agents/<agent>/headless.py) puts on its command line: no session file where memcli's
discovery or the agent's history would find it, and for a question no tool at all. What reaches
it is what would reach a model API: the prompt memcli built from redacted text.

    gw = AgentGateway.from_config(workspace, "extract", "agent/claude-code")
    obj, usage = gw.structured(messages, SomePydanticModel)    # as Gateway.structured
    reply = gw.work(system, prompt, mcp_tools)                  # a run with memcli's tools only

The answer is validated by pydantic whatever the agent's schema option promised; an invalid one is
asked again with the validation error, as with a model API. Each run appends one line to
`llm-calls.jsonl` (mode `agent` or `agent-tools`) with the tokens and cost the agent reports. A run
that fails ends with one line saying why: not installed, not logged in, rate-limited, refused a
tool it needed, no answer, timed out.
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel, ValidationError

from memcli.agents import registry
from memcli.errors import ConfigError
from memcli.llm.errors import InvalidOutput, LLMError
from memcli.llm.parsing import describe_invalid, extract_json
from memcli.llm.spend import RUN_LOG, log_call
from memcli.llm.usage import CallUsage
from memcli.ownrun import ENV as HEADLESS_RUN_ENV
from memcli.ownrun import FOLDER_PREFIX

if TYPE_CHECKING:
    from memcli.agents.base import Agent, Headless
    from memcli.agents.parts import HeadlessDialect, McpTools, Reply, Run
    from memcli.workspace import Workspace

M = TypeVar("M", bound=BaseModel)
RUN_ENV = HEADLESS_RUN_ENV  # set in every headless run: memcli's hooks stand aside (hooks/payload.py)
_ANSWER_JSON = "Answer with one JSON object only, valid against this JSON Schema:\n"
# The agents running now. Each has a session (so a process group) of its own, so neither Ctrl-C at
# the terminal nor a SIGTERM sent to memcli reaches it, and extract's and import's runs wait on them
# in daemon threads that an interrupted run abandons: whatever is still running when memcli exits
# is ended then, not left working (and spending) on its own.
_LIVE: set[subprocess.Popen[str]] = set()
_LIVE_LOCK = threading.Lock()


def is_agent_model(model: str | None) -> bool:
    return bool(model) and str(model).startswith(registry.AGENT_MODEL)


@dataclass
class AgentGateway:
    model: str  # `agent/claude-code`, `agent/claude-code/haiku`
    agent: Agent
    headless: Headless
    inner: str | None = None  # the agent's own model to ask for; None: the agent's default
    role: str = "extract"
    timeout_s: float = 300.0
    repair_attempts: int = 2
    run_log: Path | None = None
    context_tokens: int = 200_000

    @classmethod
    def from_config(cls, workspace: Workspace, role: str, model: str) -> AgentGateway:
        found = registry.by_model(model)
        if found is None:
            names = ", ".join(registry.model_name(a) for a, _ in registry.headless())
            raise ConfigError(f"unknown agent model {model!r}: use one of {names}")
        agent, headless, inner = found
        cfg = workspace.config
        timeout = cfg.extract.timeout_s if role == "extract" else cfg.memory.timeout_s
        repair = cfg.extract.max_retries if role == "extract" else cfg.memory.repair_attempts
        gw = cls(model, agent, headless, inner, role, timeout, repair, workspace.state_dir / RUN_LOG,
                 cfg.memory.context_tokens or headless.context_tokens)
        gw.check_environment()
        return gw

    @property
    def dialect(self) -> HeadlessDialect:
        dialect = self.agent.load().headless
        assert dialect is not None, self.agent.NAME  # an agent with HEADLESS has a headless.py
        return dialect

    @property
    def workers(self) -> int:
        """How many runs at once extract may start (each is a process of the agent's)."""
        return self.headless.workers

    @property
    def can_work(self) -> bool:
        """Can it run with memcli's tools (consolidate), not only answer (extract, import)?"""
        return self.dialect.work is not None

    def check_environment(self) -> None:
        """Fail early, in one line, when the agent is not installed."""
        if shutil.which(self.headless.executable) is None:
            raise ConfigError(
                f"model {self.model}: `{self.headless.executable}` is not on PATH (install "
                f"{self.agent.TITLE}, or choose another model with memory.extract_model / "
                "memory.consolidation_model or --model)")

    # -- the two shapes ------------------------------------------------------------------------
    def structured(self, messages: list[dict[str, Any]], schema: type[M], *,
                   max_tokens: int | None = None) -> tuple[M, CallUsage]:
        """One validated object of `schema`, as Gateway.structured (`max_tokens` is the agent's own
        business: it is not passed)."""
        system, prompt = _split(messages)
        json_schema = schema.model_json_schema()
        if not self.dialect.schema_option:
            prompt += "\n\n" + _ANSWER_JSON + json.dumps(json_schema, ensure_ascii=False)
        usage = CallUsage()
        problem, asked = "", prompt
        for _ in range(self.repair_attempts + 1):
            reply = self._run(partial(self.dialect.ask, system, asked, json_schema, self.inner), "agent")
            usage += _usage(reply)
            answer = reply.structured if reply.structured is not None else reply.text
            try:
                found = answer if isinstance(answer, dict) else extract_json(str(answer or ""))
                return schema.model_validate(found), usage
            except (ValueError, ValidationError) as exc:
                problem = describe_invalid(exc)
            shown = answer if isinstance(answer, str) else json.dumps(answer, ensure_ascii=False)
            asked = (f"{prompt}\n\nYour previous answer was:\n{str(shown)[:4000]}\n\nThat answer was "
                     f"invalid: {problem}. Answer again with only the JSON object, exactly as the "
                     "schema says (no other keys).")
        raise InvalidOutput(f"model {self.model} gave no valid answer after "
                            f"{self.repair_attempts + 1} tries: {problem}", usage)

    def work(self, system: str, prompt: str, tools: McpTools, timeout_s: float | None = None) -> Reply:
        """One run that may call memcli's tools (and nothing else); its reply, after the run."""
        work = self.dialect.work
        if work is None:
            raise LLMError(f"model {self.model}: memcli cannot run {self.agent.TITLE} with its tools; "
                           "consolidate with another model (memory.consolidation_model)")
        return self._run(lambda folder: work(system, prompt, tools, self.inner, folder), "agent-tools",
                         timeout_s)

    def chat(self, *args: Any, **kwargs: Any) -> Any:
        raise LLMError(f"model {self.model} runs its own tool loop: memcli consolidates with it "
                       "through memcli.consolidate.delegate, not a chat")

    # -- one run -------------------------------------------------------------------------------
    def _run(self, build: Callable[[Path], Run], mode: str, timeout_s: float | None = None) -> Reply:
        """Start the run `build` makes for its folder (new, empty, removed after), wait for it
        (`timeout_s`, else the role's), read its reply; a failure raises LLMError with the cause."""
        timeout = timeout_s or self.timeout_s
        executable = shutil.which(self.headless.executable)
        if executable is None:
            self.check_environment()
        folder = Path(tempfile.mkdtemp(prefix=FOLDER_PREFIX))
        started = time.monotonic()
        try:
            run = build(folder)
            argv = [executable or run.argv[0], *run.argv[1:]]
            for name, text in run.files.items():
                (folder / name).parent.mkdir(parents=True, exist_ok=True)
                (folder / name).write_text(text, encoding="utf-8")
            env = {**os.environ, **run.env, RUN_ENV: "1"}
            try:
                proc = subprocess.Popen(argv, cwd=folder, env=env, stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                        encoding="utf-8", errors="replace", start_new_session=True)
            except OSError as exc:
                self._log(mode, started, None, f"start: {exc}")
                raise LLMError(f"model {self.model}: cannot start `{argv[0]}` ({exc})") from None
            with _LIVE_LOCK:
                _LIVE.add(proc)
            try:
                stdout, stderr = proc.communicate(run.stdin, timeout=timeout)
            except subprocess.TimeoutExpired:
                _kill(proc)
                self._log(mode, started, None, f"timeout after {timeout:g}s")
                setting = "extract.timeout_s" if self.role == "extract" else (
                    "memory.timeout_s" if mode == "agent" else "consolidate.agent_timeout_s")
                raise LLMError(f"model {self.model}: {self.agent.TITLE} did not finish within "
                               f"{timeout:g}s ({setting})") from None
            except BaseException:
                _kill(proc)  # an interrupt: the agent's whole process group goes with it
                raise
            finally:
                with _LIVE_LOCK:
                    _LIVE.discard(proc)
            reply = self.dialect.read(stdout, stderr)
            if proc.returncode != 0 and reply.error is None:
                reply = reply._replace(error=_last_line(stderr) or f"exit status {proc.returncode}")
            self._log(mode, started, reply, reply.error)
            if reply.error is not None:
                raise LLMError(self._why(reply))
            return reply
        finally:
            if self.dialect.forget is not None:
                self.dialect.forget(folder)
            shutil.rmtree(folder, ignore_errors=True)

    def _why(self, reply: Reply) -> str:
        """The one line for a failed run: what went wrong and what to do."""
        said = " ".join(str(reply.error).split())[:300]
        low = said.lower()
        if reply.status in (401, 403) or any(w in low for w in _AUTH_WORDS):
            login = f"; {self.dialect.login}" if self.dialect.login else ""
            return f"model {self.model}: {self.agent.TITLE} is not logged in ({said}){login}"
        if reply.status == 429 or any(w in low for w in _LIMIT_WORDS):
            return f"model {self.model}: {self.agent.TITLE} is rate-limited ({said}); try again later"
        if reply.denied:
            return (f"model {self.model}: {self.agent.TITLE} was refused tools it asked for "
                    f"({', '.join(reply.denied)}): {said}")
        return f"model {self.model}: {self.agent.TITLE} failed: {said}"

    def _log(self, mode: str, started: float, reply: Reply | None, error: str | None) -> None:
        log_call(self.run_log, role=self.role, model=self.model, mode=mode, started=started,
                 usage=_usage(reply) if reply else None, error=error)


_AUTH_WORDS = ("not logged in", "please run /login", "log in", "login", "unauthorized", "invalid api key",
               "incorrect api key", "authentication", "missing environment variable", "api key")
_LIMIT_WORDS = ("rate limit", "rate-limit", "429", "too many requests", "quota", "usage limit")


def _usage(reply: Reply) -> CallUsage:
    return CallUsage(reply.prompt_tokens, reply.completion_tokens, reply.cost_usd, 1)


def _split(messages: list[dict[str, Any]]) -> tuple[str, str]:
    """Chat messages as one system prompt and one prompt: an agent takes a question, not a chat."""
    system = [str(m.get("content") or "") for m in messages if m.get("role") == "system"]
    parts = []
    for m in messages:
        text = str(m.get("content") or "")
        if m.get("role") == "user":
            parts.append(text)
        elif m.get("role") == "assistant":
            parts.append("Your previous answer was:\n" + text)
    return "\n\n".join(system), "\n\n".join(parts)


@atexit.register
def _end_live() -> None:
    """At exit, the agents the abandoned threads of an interrupted run still wait on (see _LIVE)."""
    with _LIVE_LOCK:
        live = list(_LIVE)
    for proc in live:
        _kill(proc)


def _kill(proc: subprocess.Popen[str]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:
        pass
    proc.wait()


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return lines[-1][:300] if lines else ""
