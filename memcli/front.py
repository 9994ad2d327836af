"""The front door: one table of memcli's commands and their options, read by both parsers.

Each option is declared once here (its names, the command function's parameter, type, help,
default and metavar). memcli.cli builds the Typer commands (and so every `--help`) from this table;
memcli.lean parses the hot argument shapes from the same declarations without Typer. Neither
repeats an option name or a help text.

Plain classes and literals only: the commit hook imports this module on every commit (memcli.lean),
so it must cost next to nothing to build — no dataclasses, no imports beyond pathlib.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

FLAG = bool  # an option without a value: True when given


class Opt:
    """An option (names start with '-') or a positional argument (one name, no dash)."""

    __slots__ = ("default", "help", "hidden", "key", "many", "metavar", "names", "required", "type")

    def __init__(self, names: tuple[str, ...], key: str, type: type = str, help: str = "", *,  # noqa: A002
                 default: Any = None, metavar: str | None = None, many: bool = False, hidden: bool = False,
                 required: bool = False) -> None:
        self.names = names  # e.g. ("--limit", "-n"); a positional argument: ("query",)
        self.key = key  # the command function's parameter it is passed as
        self.type = type  # str, int, Path, or FLAG
        self.help = help
        self.default = default if type is not FLAG else False
        self.many = many  # repeatable (a list); a positional one takes the rest of the arguments
        self.hidden = hidden
        self.required = required
        self.metavar = metavar or _metavar(names[0], type, many)

    @property
    def positional(self) -> bool:
        return not self.names[0].startswith("-")

    def with_(self, **changes: Any) -> Opt:
        """The same declaration with a few fields changed (a command's own default or help)."""
        copy = object.__new__(Opt)
        for name in self.__slots__:
            setattr(copy, name, changes.get(name, getattr(self, name)))
        return copy


def _metavar(name: str, kind: type, many: bool) -> str:
    if kind is FLAG:
        return ""
    if kind is Path:
        return "PATHS" if many and not name.startswith("-") else "PATH"
    if kind is int:
        return "N"
    return name.lstrip("-").upper()


class Command:
    """A command: its words, one-line summary (memcli --help), help, the function it calls in
    memcli.commands (`module` or `module:function`, default function `run`) and its options."""

    __slots__ = ("help", "hidden", "options", "summary", "target", "words")

    def __init__(self, words: tuple[str, ...], target: str, summary: str, options: tuple[Opt, ...] = (), *,
                 help: str = "", hidden: bool = False) -> None:  # noqa: A002
        self.words = words
        self.target = target
        self.summary = summary  # fits the 80 columns of `memcli --help`
        self.help = help or summary
        self.options = options
        self.hidden = hidden

    def names(self) -> dict[str, Opt]:
        """Every option name this command takes → its declaration."""
        return {name: opt for opt in self.options if not opt.positional for name in opt.names}

    def args(self) -> tuple[Opt, ...]:
        return tuple(opt for opt in self.options if opt.positional)


# Options shared by many commands: declared once.
WORKSPACE = Opt(("--workspace", "-w"), "workspace", Path,
                "Workspace root (default: found above the current directory).")
JSON = Opt(("--json",), "as_json", FLAG, "Print JSON for scripts.")
# `--json` is the one JSON flag. `lint` and `gc-report` print other formats too (`--format`, whose
# help lists those only); `--format json` is still accepted there and by `context` (whose `--format`
# is hidden: markdown is its only other form) as a deprecated alias of `--json`, for scripts and
# hooks written before `--json` was everywhere (tests/test_cli_flags.py: the two print the same;
# contradicting them is a usage error).
# One help text for every command: each command's own help says what its dry run prints.
DRY_RUN = Opt(("--dry-run",), "dry_run", FLAG, "Show what would be done; change nothing.")
PROGRESS = Opt(("--progress",), "progress", str,
               "Show the model run as it goes: auto (a live line when stderr is a terminal, without "
               "--json), text, json (one event per line on stderr), off.", default="auto", metavar="MODE")
MODEL = Opt(("--model", "-m"), "model", str, "litellm model (default: the config's model for this step).")
# Transcripts are passed the same way everywhere: `--path` (repeatable); `sessions` and `extract`
# also take them as arguments (both land in one list).
SESSION_PATHS = Opt(("--path",), "paths", Path,
                    "Session files or folders to read instead of discovering this workspace's (repeatable).",
                    many=True)
SESSION_ARGS = Opt(("paths",), "paths", Path,
                   "Session files or folders (default: this workspace's sessions).", many=True)
SINCE = Opt(("--since",), "since", str,
            "Only sessions active since a date, time or age (2025-09-01, 2025-09-01T10:00, 30m, 12h, 7d, "
            "2w).",
            metavar="WHEN")
ALL = Opt(("--all",), "show_all", FLAG, "List the hidden ones too.")
AGENTS = Opt(("--agent", "-a"), "agent", str, "{agents} or all (repeatable).", many=True, metavar="AGENT")
SCOPE = Opt(("--scope",), "scope", str, "project (this workspace's files) or user (your home's, for every "
            "project)", default="project")
REMOTE = Opt(("remote",), "remote", str, "The git remote the team shares.", default="origin")

COMMANDS: tuple[Command, ...] = (
    Command(("init",), "init", "Create the memory layout, memcli.toml and .gitignore entries.", (WORKSPACE,),
            help="Create the memory layout, a commented memcli.toml and .gitignore entries (idempotent)."),
    Command(("lint",), "lint", "Check records: schema, references, size caps, secrets.", (
        Opt(("paths",), "paths", Path, "Files or folders (default: the whole workspace).", many=True),
        Opt(("--format", "-f"), "fmt", str, "auto|text|github|sarif (JSON: --json)", default="auto"),
        Opt(("--strict",), "strict", FLAG, "Fail on warnings too."),
        Opt(("--paths-only",), "paths_only", FLAG, "Lint only the PATHS given, none meaning none (hooks); "
            "reference checks still cover the whole workspace."),
        Opt(("--no-cache",), "no_cache", FLAG, "Ignore the per-file result cache."),
        JSON, WORKSPACE),
        help="Check records: schema, references, size caps, secrets, bloat warnings."),
    Command(("rules",), "rules", "List the lint rules, or show one rule's documentation.", (
        Opt(("code",), "code", str, "A rule code or alias (default: list them all)."), WORKSPACE),
        help="List the lint rules, or show one rule's documentation (what, why, examples, this "
        "workspace's thresholds)."),
    Command(("sessions",), "sessions", "List this workspace's agent sessions.", (
        SESSION_ARGS.with_(help="Session files or folders (default: discover this workspace's)."),
        SESSION_PATHS, SINCE,
        ALL.with_(help="List empty sessions too (Aider opens one at every launch)."), JSON, WORKSPACE),
        help="List the agent sessions of this workspace: agent, id, entries, first/last time, size."),
    Command(("source",), "source", "Print the transcript entries a Source points to.", (
        Opt(("spec",), "spec", str, "Session id (or unique prefix) and entry range.",
            metavar="SESSION:START-END", required=True),
        SESSION_PATHS, JSON, WORKSPACE),
        help="Print the transcript entries a Source points to (role, time, text, tool calls)."),
    Command(("extract",), "extract", "Phase 1: extract what sessions decided into staging.", (
        SESSION_ARGS, SESSION_PATHS, MODEL, SINCE,
        DRY_RUN,
        Opt(("--stale",), "stale", FLAG, "List spans extracted with an older prompt or model."),
        Opt(("--redo",), "redo", FLAG, "With --stale: extract those spans again."),
        Opt(("--hook",), "hook", FLAG, "For agent hooks: read the hook's JSON on stdin, return at once, and "
            "extract that session in the background once it is idle."),
        JSON, PROGRESS, WORKSPACE),
        help="Phase 1: extract decisions, discussions, attempts and requests from sessions into staging. "
        "A dry run prints what would be sent (redacted) and calls no model."),
    Command(("import",), "imports", "Stage what CLAUDE.md, AGENTS.md, rules say (needs a model).", (
        Opt(("paths",), "paths", Path, "Files or folders to import (default: this workspace's memory and "
            "instruction files).", many=True),
        Opt(("--from",), "kind", str, "Only this kind: claude-memory, claude-md, agents-md, gemini-md, "
            "gemini-memory, codex-memory, cline-memory-bank, cursor-rules, windsurf-rules, "
            "copilot-instructions or markdown (with PATHS: read them as this kind).", metavar="KIND"),
        MODEL, DRY_RUN,
        JSON, PROGRESS, WORKSPACE),
        help="Stage what CLAUDE.md, AGENTS.md, agents' memories and rule files say, citing their lines; "
        "idempotent (only new or changed blocks), the files untouched. Needs a model (as extract). A dry run "
        "lists what would be staged and from which lines, and sends nothing."),
    Command(("consolidate",), "consolidate", "Phase 2: integrate staging into memory; one git commit.", (
        Opt(("--if-needed",), "if_needed", FLAG, "Run only when staging passes the "
            "consolidate.trigger_files / trigger_bytes thresholds."),
        DRY_RUN,
        Opt(("--no-commit",), "no_commit", FLAG, "Apply without a git commit."),
        Opt(("--allow-dirty",), "allow_dirty", FLAG,
            "Run despite uncommitted changes in memory/ or knowledge/."),
        Opt(("--propose",), "propose", FLAG, "Commit on a new branch memcli/proposal/<run> to review (merge "
            "it, or `memcli proposals reject`); the checked-out branch and files stay as they are."),
        MODEL,
        Opt(("--keep-published",), "keep_published", FLAG, "Leave the shared-staging items it used on their "
            "refs until `memcli staging clear` (CI: after the pull request is pushed)."),
        JSON, PROGRESS, WORKSPACE),
        help="Phase 2: integrate staging into memory, then tidy it; one locked, all-or-nothing git commit. "
        "A dry run prints the diff it would commit (the model is called) and keeps staging."),
    Command(("proposals",), "proposals", "Consolidations proposed for review: list, reject.", (
        ALL.with_(help="List the rejected ones too, with why."), JSON, WORKSPACE),
        help="The open proposals (merged ones are settled: their staging consumed, their branch deleted)."),
    Command(("proposals", "reject"), "proposals:reject", "Delete a proposal's branch and record why.", (
        Opt(("run_id",), "run_id", str, "The proposal's run id (or its branch).", metavar="RUN",
            required=True),
        Opt(("--reason",), "reason", str, "Why: recorded with its staging items, which are never proposed "
            "again.", metavar="TEXT", required=True),
        WORKSPACE),
        help="Delete a proposal's branch and record why; its staging items are not proposed again."),
    Command(("status",), "status", "The pipeline at a glance: pending sessions, staging, runs.",
            (JSON, WORKSPACE),
            help="The pipeline at a glance: pending sessions, staging vs trigger, lock, last "
            "extract/consolidate."),
    Command(("search",), "search", "Ranked search over the records (typos, code words, Japanese).", (
        Opt(("query",), "query", str, "Words to look for (any language; Japanese needs no spaces).",
            required=True),
        Opt(("--type", "-t"), "types", str, "decision|request|knowledge|summary|workflow (repeatable)",
            many=True),
        Opt(("--kind",), "kind", str, "Knowledge kind: term|policy|rule|fact|howto"),
        Opt(("--status",), "status", str, "Decision status: open|resolved|replaced"),
        Opt(("--include-replaced",), "include_replaced", FLAG, "Show every matching replaced decision "
            "(default: only those the query is about, or the best match)."),
        Opt(("--limit", "-n"), "limit", int, "How many hits to show.", default=10),
        Opt(("--lexical",), "lexical", FLAG, "Words only, even when search.embedding_model is set."),
        JSON, WORKSPACE),
        help="Ranked search over the records (BM25, code words, Japanese sentences, typos; hybrid with an "
        "embedding model)."),
    Command(("context",), "context", "Print the resident context for an agent, within a budget.", (
        Opt(("--budget",), "budget", int, "Token budget (default: context.budget_tokens, 5000).",
            metavar="TOKENS"),
        Opt(("--format", "-f"), "fmt", str, "markdown (json: the deprecated spelling of --json)",
            default="markdown", hidden=True),
        Opt(("--agent", "-a"), "agent", str, "As that agent gets it: without the knowledge it already lists "
            "as skills (memcli skills sync)."),
        JSON, WORKSPACE),
        help="Print the resident context for an agent: summary + model-invoked knowledge index, within a "
        "budget."),
    Command(("why",), "why", "A record's story: its commits, Sources and who used it.", (
        Opt(("record",), "record", str, "A record's slug or path.", metavar="SLUG|PATH", required=True),
        JSON, WORKSPACE),
        help="A record's story: the commits that touched it and why, its Sources traced, who used it."),
    Command(("eval",), "eval", "Is the memory helping? Instructions repeated across sessions.", (
        SESSION_PATHS, SINCE,
        Opt(("--stage",), "stage", FLAG, "Write the repeated instructions the memory does not hold to "
            "memory/_staging/ for the next consolidation (idempotent)."),
        JSON, WORKSPACE),
        help="Is the memory helping? Instructions the user gave in two or more sessions, and whether the "
        "memory held them then, reached the agent, and holds them now (offline, no model)."),
    Command(("mcp",), "mcp", "Serve the memory to agents as MCP tools over stdio.", (
        WORKSPACE,
        Opt(("--relay",), "relay", str, "serve one consolidation run's tools, lent over this socket",
            hidden=True)),
        help="Serve the memory to agents as MCP tools over stdio (search, read, context, source, remember)."),
    Command(("gc-report",), "gc_report", "GC candidates with a reason and evidence; changes nothing.", (
        Opt(("--format", "-f"), "fmt", str, "text|markdown (JSON: --json)", default="text"),
        JSON, WORKSPACE),
        help="GC candidates with a reason and evidence each (bloat, stale, duplicates, drift); changes "
        "nothing."),
    Command(("metrics",), "metrics", "Usage metrics: invokes per record; knowledge candidates.", (
        Opt(("--candidates",), "candidates", FLAG, "Print the knowledge-candidate report."),
        ALL.with_(help="List records without invokes too."),
        Opt(("--rebuild",), "rebuild", FLAG, "Forget the counts; read every session again."),
        SESSION_PATHS.with_(names=("--path", "--session"), key="sessions",
                            help="Count these transcript files or folders instead of discovering "
                            "(repeatable)."),
        JSON, WORKSPACE),
        help="Usage metrics: explicit invokes per record per million session tokens; knowledge candidates."),
    Command(("staging",), "", "Shared staging through git refs: publish, gather, clear.",
            help="Shared staging through git refs: publish this machine's, gather everyone's."),
    Command(("staging", "push"), "staging:push", "Publish this machine's staging files to a git ref.", (
        REMOTE, Opt(("--name",), "name", str, "This publisher's ref name (default: <user>-<host>)."),
        WORKSPACE),
        help="Publish this machine's staging files (re-checked for secrets) to refs/memcli/staging/<name>."),
    Command(("staging", "pull"), "staging:pull", "Gather every published staging item.", (REMOTE, WORKSPACE),
            help="Gather every published staging item into memory/_staging/ (deduplicated by id)."),
    Command(("staging", "clear"), "staging:clear", "Remove the pulled items a consolidation used.",
            (WORKSPACE,),
            help="Remove from their refs the pulled items a consolidation used (exit 4: another run used "
            "them)."),
    Command(("merge-driver",), "merge_driver", "Git merge driver for records (registered by init).", (
        Opt(("base",), "base", Path, "The common ancestor's version (git's %O).", metavar="BASE",
            required=True),
        Opt(("ours",), "ours", Path, "Our version; the result is written here (%A).", metavar="OURS",
            required=True),
        Opt(("theirs",), "theirs", Path, "Their version (%B).", metavar="THEIRS", required=True),
        Opt(("path",), "path", str, "The record's path in the repository (%P).", metavar="PATH",
            required=True)),
        help="Git merge driver for records: field by field, Sources unioned (registered by `memcli init`)."),
    Command(("hooks",), "", "Wire memcli into coding agents (context, MCP, capture).",
            help="Wire memcli into coding agents: context at session start, the MCP server, capture at "
            "session end."),
    Command(("hooks", "install"), "hooks:install",
            "Add memcli's hooks and MCP server to the agents' configs.",
            (AGENTS, SCOPE, DRY_RUN, WORKSPACE),
            help="Add memcli's hooks and MCP server to the agents' config files (merged, backed up). A dry "
            "run prints the diff."),
    Command(("hooks", "uninstall"), "hooks:uninstall", "Remove memcli's entries from the agents' configs.",
            (AGENTS, SCOPE, DRY_RUN, WORKSPACE),
            help="Remove memcli's entries (only those) from the agents' config files. A dry run prints the "
            "diff."),
    Command(("hooks", "status"), "hooks:status", "What is wired, per agent and scope.", (
        AGENTS, SCOPE.with_(default=None, help="project or user (default: both; project only inside a "
                            "workspace)"),
        JSON, WORKSPACE),
        help="What is wired, per agent and scope: installed, modified or missing."),
    Command(("hooks", "session-start"), "hooks:session_start", "Print the resident context for a hook.", (
        AGENTS.with_(default=None, many=False,
                     help="The agent whose form to print (default: the first agent wired)."),
        WORKSPACE),
        help="(Run by the SessionStart hook.) Print the resident context in the agent's form.", hidden=True),
    Command(("hooks", "capture"), "hooks:capture", "Extract a session once it is idle.", (
        Opt(("--session",), "session", str), Opt(("--transcript",), "transcript", str),
        Opt(("--cwd",), "cwd", str), Opt(("--event",), "event", str), WORKSPACE),
        help="(Started by `extract --hook`.) Extract the session once it has ended or gone idle.",
        hidden=True),
    Command(("skills",), "", "Knowledge and workflows as the agents' own Agent Skills.",
            help="Knowledge and workflows as the agents' own Agent Skills (SKILL.md folders)."),
    Command(("skills", "sync"), "skills:sync_run", "Write knowledge and workflows as SKILL.md folders.", (
        Opt(("--agent", "-a"), "agents", str, "claude-code|codex|gemini|copilot|pi|opencode|all (repeatable; "
            "default: the agents wired).", many=True),
        DRY_RUN, JSON, WORKSPACE),
        help="Write every knowledge record and workflow as <slug>/SKILL.md in the agents' skill folders. A "
        "dry run prints what would change."),
)


def find(words: tuple[str, ...]) -> Command:
    """The command with these words (a KeyError is a bug in the caller's table)."""
    for command in COMMANDS:
        if command.words == words:
            return command
    raise KeyError(words)
