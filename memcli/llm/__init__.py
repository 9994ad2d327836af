"""The LLM gateway: every model call memcli makes goes through this package.

    memcli.llm.gateway     Gateway: chat and structured calls, retries, output modes, the call log
    memcli.llm.agentmodel  AgentGateway: a coding agent as the model (`agent/claude-code` ...), no litellm
    memcli.llm.endpoint    which model a step uses and where it is reached (model, base URL, timeout):
                           one place for the pipeline's models and search's embedding model
    memcli.llm.models      what memcli knows of a model: its context window, prompt estimates
    memcli.llm.embeddings  embedding calls
    memcli.llm.library     litellm, loaded on demand (and in the background by `preload`)
    memcli.llm.errors      what can go wrong; memcli.llm.usage: what a call gives back
    memcli.llm.spend       what the logged calls spent, and the budget (memory.budget) they keep to
    memcli.llm.parsing     the JSON object in an answer, and why it did not validate
    memcli.llm.chunks      asking the model one chunk at a time (extract, import), on the daemon
                           threads of memcli.llm.pool, within the run's budget

API (all a caller needs):

    gw = Gateway.from_config(workspace, role="extract" | "consolidation", model=None)
    obj, usage = gw.structured(messages, SomePydanticModel)     # validated, re-asked when invalid
    turn = gw.chat(messages, tools)   # ChatTurn(content, tool_calls, usage, message) for agent loops
    usage.prompt_tokens, usage.completion_tokens, usage.cost_usd, usage.calls

Model: `--model` > config `memory.extract_model` / `memory.consolidation_model` > env
`MEMCLI_EXTRACT_MODEL` / `MEMCLI_CONSOLIDATION_MODEL` > the coding agent the user already runs
(`agent/<name>`, endpoint.default_agent; `"none"` turns that off). Any litellm model string works
and keys come from litellm's usual environment variables (`OPENAI_API_KEY`, `OPENAI_API_BASE` for
any OpenAI-compatible server with `openai/<name>`, `ANTHROPIC_API_KEY`, `ollama/<name>` ...);
config `memory.api_base` overrides the base URL.

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

The names below load on first use (PEP 562): search's embedding settings (memcli.llm.endpoint)
and a caught LLMError need neither pydantic nor the gateway.
"""

from __future__ import annotations

from memcli.lazy import lazy_exports

_HOMES = {
    "embed": "embeddings", "Endpoint": "endpoint", "RUN_LOG": "spend", "Gateway": "gateway",
    "preload": "library", "describe_invalid": "parsing", "extract_json": "parsing",
    **dict.fromkeys(("INSTALL_LINE", "ContextExceeded", "InvalidOutput", "LLMError", "MissingExtra",
                     "RequestRefused"), "errors"),
    **dict.fromkeys(("MODEL_ENV", "OFF", "Choice", "Role", "choose_model", "default_agent", "resolve_model"),
                    "endpoint"),
    **dict.fromkeys(("AgentGateway", "RUN_ENV", "is_agent_model"), "agentmodel"),
    **dict.fromkeys(("ANSWER_FLOOR", "DEFAULT_CONTEXT", "answer_floor", "assumed_window", "context_tokens",
                     "estimate_prompt", "known_context", "table_context", "takes_num_ctx"), "models"),
    **dict.fromkeys(("CallUsage", "ChatTurn", "ToolCallRequest"), "usage"),
}
__all__ = sorted(_HOMES)
__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
