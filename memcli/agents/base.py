"""The one interface through which memcli knows a coding agent (the list of agents: registry.py).

An agent is a package under memcli/agents/ whose `__init__` is its declaration, a module with the
attributes of `Agent` below (as pre-commit's languages are modules with the attributes of its
`Language`):

- plain facts: its names, whether and how memcli wires hooks into it, how its transcripts name an
  MCP server's tool. The hooks' start-up paths (memcli/lean.py: `extract --hook`, `hooks
  session-start`) read these and nothing else, so a declaration imports nothing but this module;
- `load()`, which imports the rest on first use and returns its parts (parts.py: the types), each
  declared by one module of the package:
    transcript.py  READER     its session files read into entries (format detection, header fields,
                              the entries, resume points): the transcript model of memcli.transcript
    discovery.py   DISCOVERY  where its sessions are for a workspace, and which files in a folder
                              given explicitly look like its transcripts
    wiring.py      WIRING     its hook and MCP config entries per scope (memcli.agents.targets), and
                              what only its user can do (trust, approvals), read from its own files

An agent without hooks (Aider, memcli JSONL) has HOOKS None and no WIRING; one whose sessions
memcli cannot find by itself (memcli JSONL) has a DISCOVERY without `files`.

Optional, for an agent that loads Agent Skills (`<folder>/<name>/SKILL.md`): `SKILLS`, a `Skills`
below (the project folders it reads, the first one preferred; its home folders), and a
`skills.py` module whose `DIALECT` (parts.py: `SkillDialect`) its `load()` returns as the part
`skills` — how its SKILL.md says "explicit use only" and "not in the user's menu", and what it
lists of many skills. `memcli skills sync` writes knowledge and workflows as skills for exactly
the agents that declare both (registry.skilled()); an agent without them is left alone, so
declaring them is all it takes to add one (docs/skills.md).

Optional, for an agent memcli can run as its model (`agent/<NAME>`, docs/models.md): `HEADLESS`,
a `Headless` below (its executable, its context window), and a `headless.py` module whose
`DIALECT` (parts.py: `HeadlessDialect`) its `load()` returns as the part `headless` — the command
line of one headless question (with its own structured-output option where it has one), of one
working run that may use memcli's run-scoped MCP tools and nothing else, and how its output
reads. memcli.llm.agentmodel runs them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from memcli.agents.parts import Parts

TEXT = "text"  # its SessionStart hook's stdout is added to the context as is
JSON = "json"  # only `{"hookSpecificOutput": {"additionalContext": ...}}` reaches the context
ADDITIONAL_CONTEXT = "additional-context"  # only a top-level `{"additionalContext": ...}` does
FORMS = (TEXT, JSON, ADDITIONAL_CONTEXT)


class Hooks:
    """How memcli is wired into an agent that runs hooks. A plain class rather than a NamedTuple: the
    hooks' start-up paths build one per agent, and a NamedTuple compiles its annotations."""

    __slots__ = ("end_events", "option", "session_start")

    def __init__(self, option: str, session_start: str, end_events: frozenset[str]) -> None:
        self.option = option  # its `--agent` in `memcli hooks`, and in the hook commands installed
        self.session_start = session_start  # one of FORMS: what its SessionStart hook must print
        self.end_events = end_events  # hook events that mean its session is over: capture at once


class Skills:
    """Where an agent looks for Agent Skills, as folders relative to the project root and to the
    user's home. A plain class, as `Hooks`: the session-start hook reads it."""

    __slots__ = ("folders", "home_folders")

    def __init__(self, folders: tuple[str, ...], home_folders: tuple[str, ...] = ()) -> None:
        self.folders = folders  # in the project; memcli writes the first, or one another agent shares
        self.home_folders = home_folders  # in the user's home (`~/...`): never written by memcli


class Headless:
    """How memcli runs an agent as a model: its executable (found on PATH) and the context window
    memcli sizes its inputs for. A plain class, as `Hooks`: choosing the default model reads it."""

    __slots__ = ("context_tokens", "executable", "workers")

    def __init__(self, executable: str, context_tokens: int, workers: int = 2) -> None:
        self.executable = executable  # e.g. `claude`: a user's install puts it on PATH
        self.context_tokens = context_tokens  # what its default model holds, or less
        self.workers = workers  # how many of its runs extract starts at once (each is a process)


class Agent(Protocol):
    # Read-only members (properties), so that a module's `HOOKS = None` or `TOOL_NAMES = ("a",)`
    # matches them as it is: a mutable protocol attribute would have to be declared with the same type.
    @property
    def NAME(self) -> str: ...  # SessionInfo.agent: in `memcli sessions`, staging files, the ledger
    @property
    def TITLE(self) -> str: ...  # how messages and docs name it
    @property
    def HOOKS(self) -> Hooks | None: ...  # None: it runs no hooks, memcli only reads its sessions
    # How its transcripts (and allow rules) name an MCP server's tool ("mcp__{server}__{tool}"),
    # this version's first
    @property
    def TOOL_NAMES(self) -> tuple[str, ...]: ...

    def load(self) -> Parts:
        """Its reader, discovery and wiring (importing them the first time)."""
        ...
