"""The Typer app: parse arguments, call the command (memcli.commands), exit. No logic lives here.

Each command imports its module when it runs, not here: `memcli --help` and every command load only
what they use (tests/test_lean_start.py). The lean routes (memcli.lean) call the same functions.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from memcli import __version__
from memcli.agents import registry
from memcli.boundary import run_guarded

app = typer.Typer(
    name="memcli",
    help="Git-native project memory for AI coding agents.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)

# Shared options, defined once.
WorkspaceOpt = Annotated[
    Optional[Path],  # noqa: UP045 - Typer reads the annotation at runtime
    typer.Option("--workspace", "-w", help="Workspace root (default: found above the current directory).",
                 show_default=False),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON for scripts.")]
ProgressOpt = Annotated[str, typer.Option(
    "--progress", metavar="MODE", help="Show the model run as it goes: auto (a live line when stderr is a "
    "terminal, without --json), text, json (one event per line on stderr), off.")]
ModelOpt = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option("--model", "-m", help="litellm model (default: the config's model for this step).",
                 show_default=False),
]
# Transcripts are passed the same way everywhere: `--path` (repeatable); `sessions` and `extract`
# also take them as arguments.
SessionPathsOpt = Annotated[
    Optional[list[Path]],  # noqa: UP045
    typer.Option("--path", metavar="PATH", help="Session files or folders to read instead of discovering "
                 "this workspace's (repeatable).", show_default=False),
]
SinceOpt = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option("--since", help="Only sessions active since a date, time or age "
                 "(2025-09-01, 2025-09-01T10:00, 30m, 12h, 7d, 2w).", show_default=False),
]


def _version(value: bool) -> None:
    if value:
        print(f"memcli {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Show the version and exit.")
    ] = False,
) -> None:
    """Git-native project memory for AI coding agents."""


@app.command()
def init(workspace: WorkspaceOpt = None) -> None:
    """Create the memory layout, a commented memcli.toml and .gitignore entries (idempotent)."""
    from memcli.commands.init import run

    raise typer.Exit(run(workspace))


@app.command()
def lint(
    paths: Annotated[Optional[list[Path]], typer.Argument(  # noqa: UP045
        help="Files or folders (default: the whole workspace).")] = None,
    fmt: Annotated[str, typer.Option("--format", "-f", help="auto|text|json|github|sarif")] = "auto",
    strict: Annotated[bool, typer.Option("--strict", help="Fail on warnings too.")] = False,
    paths_only: Annotated[bool, typer.Option(
        "--paths-only", help="Lint only the PATHS given, none meaning none (hooks); reference checks "
        "still cover the whole workspace.")] = False,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Ignore the per-file result cache.")] = False,
    as_json: JsonOpt = False,
    workspace: WorkspaceOpt = None,
) -> None:
    """Check records: schema, references, size caps, secrets, bloat warnings."""
    from memcli.commands.lint import run

    raise typer.Exit(run(paths, fmt=fmt, strict=strict, paths_only=paths_only, no_cache=no_cache,
                         as_json=as_json, workspace=workspace))


@app.command()
def rules(
    code: Annotated[Optional[str], typer.Argument(  # noqa: UP045
        help="A rule code or alias (default: list them all).")] = None,
    workspace: WorkspaceOpt = None,
) -> None:
    """List the lint rules, or show one rule's documentation (what, why, examples, this workspace's
    thresholds)."""
    from memcli.commands.rules import run

    raise typer.Exit(run(code, workspace=workspace))


@app.command()
def sessions(
    paths: Annotated[Optional[list[Path]], typer.Argument(help="Session files or folders (default: discover this workspace's).")] = None,  # noqa: UP045,E501
    path: SessionPathsOpt = None,
    since: SinceOpt = None,
    show_all: Annotated[bool, typer.Option("--all", help="List empty sessions too (Aider opens one at "
                                           "every launch).")] = False,
    as_json: JsonOpt = False,
    workspace: WorkspaceOpt = None,
) -> None:
    """List the agent sessions of this workspace: agent, id, entries, first/last time, size."""
    from memcli.commands.sessions import run

    raise typer.Exit(run([*(paths or []), *(path or [])], since=since, show_all=show_all, as_json=as_json,
                         workspace=workspace))


@app.command()
def source(
    spec: Annotated[str, typer.Argument(metavar="SESSION:START-END", help="Session id (or unique prefix) and entry range.")],  # noqa: E501
    paths: SessionPathsOpt = None,
    as_json: JsonOpt = False,
    workspace: WorkspaceOpt = None,
) -> None:
    """Print the transcript entries a Source points to (role, time, text, tool calls)."""
    from memcli.commands.source import run

    raise typer.Exit(run(spec, paths=paths, as_json=as_json, workspace=workspace))


@app.command()
def extract(
    paths: Annotated[Optional[list[Path]], typer.Argument(  # noqa: UP045
        help="Session files or folders (default: this workspace's sessions).")] = None,
    path: SessionPathsOpt = None,
    model: ModelOpt = None,
    since: SinceOpt = None,
    dry_run: Annotated[bool, typer.Option(
        "--dry-run", help="Print what would be sent (redacted); call nothing.")] = False,
    stale: Annotated[bool, typer.Option(
        "--stale", help="List spans extracted with an older prompt or model.")] = False,
    redo: Annotated[bool, typer.Option("--redo", help="With --stale: extract those spans again.")] = False,
    hook: Annotated[bool, typer.Option(
        "--hook", help="For agent hooks: read the hook's JSON on stdin, return at once, and extract "
        "that session in the background once it is idle.")] = False,
    json_out: JsonOpt = False,
    progress: ProgressOpt = "auto",
    workspace: WorkspaceOpt = None,
) -> None:
    """Phase 1: extract decisions, discussions, attempts and requests from sessions into staging."""
    from memcli.commands.extract import run

    raise typer.Exit(run([*(paths or []), *(path or [])], model=model, since=since, dry_run=dry_run,
                         stale=stale, redo=redo, hook=hook, json_out=json_out, progress=progress,
                         workspace=workspace))


@app.command("import")
def import_(
    paths: Annotated[Optional[list[Path]], typer.Argument(  # noqa: UP045
        metavar="PATHS",
        help="Files or folders to import (default: this workspace's memory and instruction files).")] = None,
    kind: Annotated[Optional[str], typer.Option(  # noqa: UP045
        "--from", metavar="KIND", help="Only this kind: claude-memory, claude-md, agents-md, gemini-md, "
        "gemini-memory, codex-memory, cline-memory-bank, cursor-rules, windsurf-rules, copilot-instructions "
        "or markdown (with PATHS: read them as this kind).", show_default=False)] = None,
    model: ModelOpt = None,
    dry_run: Annotated[bool, typer.Option(
        "--dry-run", help="List what would be staged and from which lines; send and write nothing.")] = False,
    json_out: JsonOpt = False,
    progress: ProgressOpt = "auto",
    workspace: WorkspaceOpt = None,
) -> None:
    """Stage what CLAUDE.md, AGENTS.md, agents' memories and rule files say, citing their lines;
    idempotent (only new or changed blocks), the files untouched."""
    from memcli.commands.imports import run

    raise typer.Exit(run(paths, kind=kind, model=model, dry_run=dry_run, json_out=json_out,
                         progress=progress, workspace=workspace))


@app.command()
def consolidate(
    if_needed: Annotated[bool, typer.Option("--if-needed", help="Run only when staging passes the "
                                            "consolidate.trigger_files / trigger_bytes thresholds.")] = False,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Print the diff; apply nothing.")] = False,
    no_commit: Annotated[bool, typer.Option("--no-commit", help="Apply without a git commit.")] = False,
    allow_dirty: Annotated[bool, typer.Option("--allow-dirty", help="Run despite uncommitted changes "
                                              "in memory/ or knowledge/.")] = False,
    propose: Annotated[bool, typer.Option("--propose", help="Commit on a new branch memcli/proposal/<run> "
                                          "to review (merge it, or `memcli proposals reject`); the "
                                          "checked-out branch and files stay as they are.")] = False,
    model: ModelOpt = None,
    keep_published: Annotated[bool, typer.Option("--keep-published", help="Leave the shared-staging "
                              "items it used on their refs until `memcli staging clear` (CI: after "
                              "the pull request is pushed).")] = False,
    json_out: JsonOpt = False,
    progress: ProgressOpt = "auto",
    workspace: WorkspaceOpt = None,
) -> None:
    """Phase 2: integrate staging into memory, then tidy it; one locked, all-or-nothing git commit."""
    from memcli.commands.consolidate import run

    raise typer.Exit(run(if_needed=if_needed, dry_run=dry_run, no_commit=no_commit, allow_dirty=allow_dirty,
                         model=model, keep_published=keep_published, json_out=json_out, progress=progress,
                         workspace=workspace, propose=propose))


proposals_app = typer.Typer(name="proposals", add_completion=False, rich_markup_mode=None,
                            help="Consolidations proposed for review (consolidate --propose): list, reject.")
app.add_typer(proposals_app)


@proposals_app.callback(invoke_without_command=True)
def proposals(
    ctx: typer.Context,
    show_all: Annotated[bool, typer.Option("--all", help="List the rejected ones too, with why.")] = False,
    json_out: JsonOpt = False,
    workspace: WorkspaceOpt = None,
) -> None:
    """The open proposals (merged ones are settled: their staging consumed, their branch deleted)."""
    if ctx.invoked_subcommand is not None:
        return
    from memcli.commands.proposals import run

    raise typer.Exit(run(show_all=show_all, json_out=json_out, workspace=workspace))


@proposals_app.command("reject")
def proposals_reject(
    run_id: Annotated[str, typer.Argument(metavar="RUN", help="The proposal's run id (or its branch).")],
    reason: Annotated[str, typer.Option("--reason", help="Why: recorded with its staging items, which "
                                        "are never proposed again.")],
    workspace: WorkspaceOpt = None,
) -> None:
    """Delete a proposal's branch and record why; its staging items are not proposed again."""
    from memcli.commands.proposals import reject

    raise typer.Exit(reject(run_id, reason=reason, workspace=workspace))


@app.command()
def status(json_out: JsonOpt = False, workspace: WorkspaceOpt = None) -> None:
    """The pipeline at a glance: pending sessions, staging vs trigger, lock, last extract/consolidate."""
    from memcli.commands.status import run

    raise typer.Exit(run(json_out=json_out, workspace=workspace))


@app.command()
def search(
    query: Annotated[str, typer.Argument(help="Words to look for (any language; Japanese needs no spaces).")],
    types: Annotated[Optional[list[str]], typer.Option("--type", "-t", help="decision|request|knowledge|summary|workflow (repeatable)")] = None,  # noqa: UP045,E501
    kind: Annotated[Optional[str], typer.Option("--kind", help="Knowledge kind: term|policy|rule|fact|howto")] = None,  # noqa: UP045,E501
    status: Annotated[Optional[str], typer.Option("--status", help="Decision status: open|resolved|replaced")] = None,  # noqa: UP045,E501
    include_replaced: Annotated[bool, typer.Option("--include-replaced", help="Show every matching replaced decision (default: only those the query is about, or the best match).")] = False,  # noqa: E501
    limit: Annotated[int, typer.Option("--limit", "-n", help="How many hits to show.")] = 10,
    lexical: Annotated[bool, typer.Option("--lexical", help="Words only, even when search.embedding_model is set.")] = False,  # noqa: E501
    as_json: JsonOpt = False,
    workspace: WorkspaceOpt = None,
) -> None:
    """Ranked search over the records (BM25, code words, Japanese sentences, typos; hybrid with an embedding model)."""  # noqa: E501
    from memcli.commands.search import run

    raise typer.Exit(run(query, types=types, kind=kind, status=status, include_replaced=include_replaced,
                         limit=limit, lexical=lexical, as_json=as_json, workspace=workspace))


@app.command()
def context(
    budget: Annotated[Optional[int], typer.Option("--budget", help="Token budget (default: context.budget_tokens, 5000).")] = None,  # noqa: UP045,E501
    fmt: Annotated[str, typer.Option("--format", "-f", help="markdown|json")] = "markdown",
    agent: Annotated[Optional[str], typer.Option("--agent", "-a", help="As that agent gets it: without the knowledge it already lists as skills (memcli skills sync).", show_default=False)] = None,  # noqa: UP045,E501
    as_json: JsonOpt = False,
    workspace: WorkspaceOpt = None,
) -> None:
    """Print the resident context for an agent: summary + model-invoked knowledge index, within a budget."""
    from memcli.commands.context import run

    raise typer.Exit(run(budget=budget, fmt=fmt, as_json=as_json, agent=agent, workspace=workspace))


@app.command()
def why(
    record: Annotated[str, typer.Argument(metavar="SLUG|PATH", help="A record's slug or path.")],
    as_json: JsonOpt = False,
    workspace: WorkspaceOpt = None,
) -> None:
    """A record's story: the commits that touched it and why, its Sources traced, who used it."""
    from memcli.commands.why import run

    raise typer.Exit(run(record, as_json=as_json, workspace=workspace))


@app.command("eval")
def eval_(
    path: SessionPathsOpt = None,
    since: SinceOpt = None,
    stage: Annotated[bool, typer.Option("--stage", help="Write the repeated instructions the memory does "
                                        "not hold to memory/_staging/ for the next consolidation "
                                        "(idempotent).")] = False,
    as_json: JsonOpt = False,
    workspace: WorkspaceOpt = None,
) -> None:
    """Is the memory helping? Instructions the user gave in two or more sessions, and whether the memory
    held them then, reached the agent, and holds them now (offline, no model)."""
    from memcli.commands.eval import run

    raise typer.Exit(run(path, since=since, as_json=as_json, stage=stage, workspace=workspace))


@app.command()
def mcp(
    workspace: WorkspaceOpt = None,
    relay: Annotated[str | None, typer.Option(
        "--relay", hidden=True, help="serve one consolidation run's tools, lent over this socket")] = None,
) -> None:
    """Serve the memory to agents as MCP tools over stdio (search, read, context, source, remember)."""
    from memcli.commands.mcp import run

    raise typer.Exit(run(workspace=workspace, relay=relay))


@app.command("gc-report")
def gc_report(
    fmt: Annotated[str, typer.Option("--format", "-f", help="text|markdown|json")] = "text",
    as_json: JsonOpt = False,
    workspace: WorkspaceOpt = None,
) -> None:
    """GC candidates with a reason and evidence each (bloat, stale, duplicates, drift); changes nothing."""
    from memcli.commands.gc_report import run

    raise typer.Exit(run(fmt=fmt, as_json=as_json, workspace=workspace))


@app.command()
def metrics(
    candidates: Annotated[bool, typer.Option("--candidates", help="Print the knowledge-candidate report.")] = False,  # noqa: E501
    show_all: Annotated[bool, typer.Option("--all", help="List records without invokes too.")] = False,
    rebuild: Annotated[bool, typer.Option("--rebuild", help="Forget the counts; read every session again.")] = False,  # noqa: E501
    session: Annotated[Optional[list[Path]], typer.Option("--path", "--session", metavar="PATH", help="Count these transcript files or folders instead of discovering (repeatable).")] = None,  # noqa: UP045, E501
    json_out: JsonOpt = False,
    workspace: WorkspaceOpt = None,
) -> None:
    """Usage metrics: explicit invokes per record per million session tokens; knowledge candidates."""
    from memcli.commands.metrics import run

    raise typer.Exit(run(candidates=candidates, as_json=json_out, rebuild=rebuild, sessions=session,
                         show_all=show_all, workspace=workspace))


staging_app = typer.Typer(help="Shared staging through git refs: publish this machine's, gather everyone's.",
                          no_args_is_help=True)
app.add_typer(staging_app, name="staging")
RemoteArg = Annotated[str, typer.Argument(help="The git remote the team shares.")]


@staging_app.command("push")
def staging_push(
    remote: RemoteArg = "origin",
    name: Annotated[Optional[str], typer.Option("--name", help="This publisher's ref name "  # noqa: UP045
                                                "(default: <user>-<host>).")] = None,
    workspace: WorkspaceOpt = None,
) -> None:
    """Publish this machine's staging files (re-checked for secrets) to refs/memcli/staging/<name>."""
    from memcli.commands.staging import push

    raise typer.Exit(push(remote, name=name, workspace=workspace))


@staging_app.command("pull")
def staging_pull(remote: RemoteArg = "origin", workspace: WorkspaceOpt = None) -> None:
    """Gather every published staging item into memory/_staging/ (deduplicated by id)."""
    from memcli.commands.staging import pull

    raise typer.Exit(pull(remote, workspace=workspace))


@staging_app.command("clear")
def staging_clear(workspace: WorkspaceOpt = None) -> None:
    """Remove from their refs the pulled items a consolidation used (exit 4: another run used them)."""
    from memcli.commands.staging import clear

    raise typer.Exit(clear(workspace=workspace))


@app.command("merge-driver")
def merge_driver(
    base: Annotated[Path, typer.Argument(help="The common ancestor's version (git's %O).")],
    ours: Annotated[Path, typer.Argument(help="Our version; the result is written here (%A).")],
    theirs: Annotated[Path, typer.Argument(help="Their version (%B).")],
    path: Annotated[str, typer.Argument(help="The record's path in the repository (%P).")],
) -> None:
    """Git merge driver for records: field by field, Sources unioned (registered by `memcli init`)."""
    from memcli.commands.merge_driver import run

    raise typer.Exit(run(base, ours, theirs, path))


hooks_app = typer.Typer(name="hooks", no_args_is_help=True, add_completion=False, rich_markup_mode=None,
                        help="Wire memcli into coding agents: context at session start, the MCP "
                        "server, capture at session end.")
app.add_typer(hooks_app)
AgentOpt = Annotated[str, typer.Option("--agent", "-a", metavar="AGENT",
                                        help=f"{', '.join(registry.options())} or all.")]
ScopeOpt = Annotated[str, typer.Option("--scope", help="project (this workspace's files) or user "
                                                       "(your home's, for every project)")]


@hooks_app.command("install")
def hooks_install(
    agent: AgentOpt = "all",
    scope: ScopeOpt = "project",
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Print the diff; write nothing.")] = False,
    workspace: WorkspaceOpt = None,
) -> None:
    """Add memcli's hooks and MCP server to the agents' config files (merged, backed up)."""
    from memcli.commands.hooks import install

    raise typer.Exit(install(agent=agent, scope=scope, dry_run=dry_run, workspace=workspace))


@hooks_app.command("uninstall")
def hooks_uninstall(
    agent: AgentOpt = "all",
    scope: ScopeOpt = "project",
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Print the diff; write nothing.")] = False,
    workspace: WorkspaceOpt = None,
) -> None:
    """Remove memcli's entries (only those) from the agents' config files."""
    from memcli.commands.hooks import uninstall

    raise typer.Exit(uninstall(agent=agent, scope=scope, dry_run=dry_run, workspace=workspace))


@hooks_app.command("status")
def hooks_status(
    agent: AgentOpt = "all",
    scope: Annotated[Optional[str], typer.Option(  # noqa: UP045
        "--scope", help="project or user (default: both; project only inside a workspace)",
        show_default=False)] = None,
    json_out: JsonOpt = False,
    workspace: WorkspaceOpt = None,
) -> None:
    """What is wired, per agent and scope: installed, modified or missing."""
    from memcli.commands.hooks import status

    raise typer.Exit(status(agent=agent, scope=scope, json_out=json_out, workspace=workspace))


@hooks_app.command("session-start", hidden=True)
def hooks_session_start(agent: AgentOpt = registry.SESSION_START_DEFAULT,
                        workspace: WorkspaceOpt = None) -> None:
    """(Run by the SessionStart hook.) Print the resident context in the agent's form."""
    from memcli.commands.hooks import session_start

    raise typer.Exit(session_start(agent=agent, workspace=workspace))


@hooks_app.command("capture", hidden=True)
def hooks_capture(
    session: Annotated[Optional[str], typer.Option("--session")] = None,  # noqa: UP045
    transcript: Annotated[Optional[str], typer.Option("--transcript")] = None,  # noqa: UP045
    cwd: Annotated[Optional[str], typer.Option("--cwd")] = None,  # noqa: UP045
    event: Annotated[Optional[str], typer.Option("--event")] = None,  # noqa: UP045 - hook_event_name
    workspace: WorkspaceOpt = None,
) -> None:
    """(Started by `extract --hook`.) Extract the session once it has ended or gone idle."""
    from memcli.commands.hooks import capture

    raise typer.Exit(capture(session=session, transcript=transcript, cwd=cwd, event=event,
                             workspace=workspace))


skills_app = typer.Typer(name="skills", no_args_is_help=True, add_completion=False, rich_markup_mode=None,
                         help="Knowledge and workflows as the agents' own Agent Skills (SKILL.md folders).")
app.add_typer(skills_app)


@skills_app.command("sync")
def skills_sync(
    agent: Annotated[Optional[list[str]], typer.Option(  # noqa: UP045
        "--agent", "-a",
        help="claude-code|codex|gemini|copilot|pi|opencode|all (repeatable; default: the agents wired).",
        show_default=False)] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Print what would change; write nothing.")
                       ] = False,
    as_json: JsonOpt = False,
    workspace: WorkspaceOpt = None,
) -> None:
    """Write every knowledge record and workflow as <slug>/SKILL.md in the agents' skill folders."""
    from memcli.commands.skills import sync_run

    raise typer.Exit(sync_run(agent, dry_run=dry_run, as_json=as_json, workspace=workspace))


def main(argv: list[str] | None = None) -> None:
    sys.exit(run_guarded(lambda: app(args=argv, standalone_mode=False)))
