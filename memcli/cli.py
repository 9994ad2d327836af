"""The Typer app: parse arguments, call the library, exit. No business logic lives here."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from memcli import __version__
from memcli.agents import registry

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


def _json_format(fmt: str, as_json: bool, default: str) -> str:
    """`--json` is `--format json` (every command with JSON output takes it)."""
    from memcli.lean import json_format

    return json_format(fmt, as_json, default)


def _open(workspace: Path | None):
    from memcli.workspace import Workspace

    return Workspace.open(workspace)


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
    from memcli.init import run

    raise typer.Exit(run(workspace or Path.cwd()))


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
    from memcli.lint.run import run

    fmt = _json_format(fmt, as_json, "auto")
    ws = _open(workspace if workspace else _workspace_from_paths(paths))
    code = run(ws, list(paths or []), fmt=fmt, strict=strict, paths_only=paths_only, use_cache=not no_cache)
    raise typer.Exit(code)


def _workspace_from_paths(paths: list[Path] | None) -> Path | None:
    """Paths passed without --workspace: find the workspace above the first one."""
    from memcli.workspace import find_root

    if not paths:
        return None
    first = paths[0].resolve()
    return find_root(first if first.is_dir() else first.parent)


@app.command()
def rules(
    code: Annotated[Optional[str], typer.Argument(  # noqa: UP045
        help="A rule code or alias (default: list them all).")] = None,
    workspace: WorkspaceOpt = None,
) -> None:
    """List the lint rules, or show one rule's documentation (what, why, examples, this workspace's
    thresholds)."""
    from memcli.lint.docs import run

    raise typer.Exit(run(code, workspace))


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
    from memcli.sessions.commands import run_sessions

    raise typer.Exit(run_sessions(workspace, [*(paths or []), *(path or [])], since=since, as_json=as_json,
                                  show_all=show_all))


@app.command()
def source(
    spec: Annotated[str, typer.Argument(metavar="SESSION:START-END", help="Session id (or unique prefix) and entry range.")],  # noqa: E501
    paths: SessionPathsOpt = None,
    as_json: JsonOpt = False,
    workspace: WorkspaceOpt = None,
) -> None:
    """Print the transcript entries a Source points to (role, time, text, tool calls)."""
    from memcli.sessions.commands import run_source

    raise typer.Exit(run_source(workspace, spec, list(paths or []), as_json=as_json))


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
    workspace: WorkspaceOpt = None,
) -> None:
    """Phase 1: extract decisions, discussions, attempts and requests from sessions into staging."""
    if hook:
        from memcli.hooks.payload import extract_hook

        raise typer.Exit(extract_hook(getattr(sys.stdin, "buffer", None), workspace))
    from memcli.extract.run import run
    from memcli.sessions.commands import parse_since  # one --since syntax for every command

    paths = [*(paths or []), *(path or [])]
    raise typer.Exit(run(_open(workspace), paths=paths or None, since=parse_since(since),
                         model=model, dry_run=dry_run, as_json=json_out, stale=stale, redo=redo))


@app.command()
def consolidate(
    if_needed: Annotated[bool, typer.Option("--if-needed", help="Run only when staging passes the "
                                            "consolidate.trigger_files / trigger_bytes thresholds.")] = False,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Print the diff; apply nothing.")] = False,
    no_commit: Annotated[bool, typer.Option("--no-commit", help="Apply without a git commit.")] = False,
    allow_dirty: Annotated[bool, typer.Option("--allow-dirty", help="Run despite uncommitted changes "
                                              "in memory/ or knowledge/.")] = False,
    model: ModelOpt = None,
    keep_published: Annotated[bool, typer.Option("--keep-published", help="Leave the shared-staging "
                              "items it used on their refs until `memcli staging clear` (CI: after "
                              "the pull request is pushed).")] = False,
    json_out: JsonOpt = False,
    workspace: WorkspaceOpt = None,
) -> None:
    """Phase 2: integrate staging into memory, then tidy it; one locked, all-or-nothing git commit."""
    from memcli.consolidate.run import Options, run

    opts = Options(if_needed, dry_run, no_commit, allow_dirty, model, json_out, keep_published)
    raise typer.Exit(run(_open(workspace), opts))


@app.command()
def status(json_out: JsonOpt = False, workspace: WorkspaceOpt = None) -> None:
    """The pipeline at a glance: pending sessions, staging vs trigger, lock, last extract/consolidate."""
    from memcli.status import run

    raise typer.Exit(run(_open(workspace), json_out=json_out))


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
    from memcli.search.run import run

    raise typer.Exit(run(_open(workspace), query, types=types, kind=kind, status=status,
                         include_replaced=include_replaced, limit=limit, as_json=as_json, lexical=lexical))


@app.command()
def context(
    budget: Annotated[Optional[int], typer.Option("--budget", help="Token budget (default: context.budget_tokens, 5000).")] = None,  # noqa: UP045,E501
    fmt: Annotated[str, typer.Option("--format", "-f", help="markdown|json")] = "markdown",
    agent: Annotated[Optional[str], typer.Option("--agent", "-a", help="As that agent gets it: without the knowledge it already lists as skills (memcli skills sync).", show_default=False)] = None,  # noqa: UP045,E501
    as_json: JsonOpt = False,
    workspace: WorkspaceOpt = None,
) -> None:
    """Print the resident context for an agent: summary + model-invoked knowledge index, within a budget."""
    from memcli.context import run

    raise typer.Exit(run(_open(workspace), budget=budget, fmt=_json_format(fmt, as_json, "markdown"),
                         agent=agent))


@app.command()
def why(
    record: Annotated[str, typer.Argument(metavar="SLUG|PATH", help="A record's slug or path.")],
    as_json: JsonOpt = False,
    workspace: WorkspaceOpt = None,
) -> None:
    """A record's story: the commits that touched it and why, its Sources traced, who used it."""
    from memcli.why import run

    raise typer.Exit(run(_open(workspace), record, as_json=as_json))


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
    from memcli.eval.run import run

    raise typer.Exit(run(workspace, list(path or []), since=since, as_json=as_json, stage=stage))


@app.command()
def mcp(workspace: WorkspaceOpt = None) -> None:
    """Serve the memory to agents as MCP tools over stdio (search, read, context, source, remember)."""
    from memcli.mcpserver.server import run

    raise typer.Exit(run(_open(workspace)))


@app.command("gc-report")
def gc_report(
    fmt: Annotated[str, typer.Option("--format", "-f", help="text|markdown|json")] = "text",
    as_json: JsonOpt = False,
    workspace: WorkspaceOpt = None,
) -> None:
    """GC candidates with a reason and evidence each (bloat, stale, duplicates, drift); changes nothing."""
    from memcli.gc.run import run

    raise typer.Exit(run(_open(workspace), fmt=_json_format(fmt, as_json, "text")))


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
    from memcli.metrics.run import run

    raise typer.Exit(run(_open(workspace), candidates=candidates, as_json=json_out, rebuild=rebuild,
                         sessions=list(session or []), show_all=show_all))


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
    from memcli.team.staging import run_push

    raise typer.Exit(run_push(_open(workspace), remote, name))


@staging_app.command("pull")
def staging_pull(remote: RemoteArg = "origin", workspace: WorkspaceOpt = None) -> None:
    """Gather every published staging item into memory/_staging/ (deduplicated by id)."""
    from memcli.team.staging import run_pull

    raise typer.Exit(run_pull(_open(workspace), remote))


@staging_app.command("clear")
def staging_clear(workspace: WorkspaceOpt = None) -> None:
    """Remove from their refs the pulled items a consolidation used (exit 4: another run used them)."""
    from memcli.team.staging import run_clear

    raise typer.Exit(run_clear(_open(workspace)))


@app.command("merge-driver")
def merge_driver(
    base: Annotated[Path, typer.Argument(help="The common ancestor's version (git's %O).")],
    ours: Annotated[Path, typer.Argument(help="Our version; the result is written here (%A).")],
    theirs: Annotated[Path, typer.Argument(help="Their version (%B).")],
    path: Annotated[str, typer.Argument(help="The record's path in the repository (%P).")],
) -> None:
    """Git merge driver for records: field by field, Sources unioned (registered by `memcli init`)."""
    from memcli.merge.driver import main as driver

    raise typer.Exit(driver([str(base), str(ours), str(theirs), path]))


hooks_app = typer.Typer(name="hooks", no_args_is_help=True, add_completion=False, rich_markup_mode=None,
                        help="Wire memcli into coding agents: context at session start, the MCP "
                        "server, capture at session end.")
app.add_typer(hooks_app)
AgentOpt = Annotated[str, typer.Option("--agent", "-a", help="|".join([*registry.options(), "all"]))]
ScopeOpt = Annotated[str, typer.Option("--scope", help="project (this workspace's files) or user "
                                                       "(your home's, for every project)")]


def _hooks_root(scope: str, workspace: Path | None) -> Path | None:
    return _open(workspace).root if scope == "project" else None


@hooks_app.command("install")
def hooks_install(
    agent: AgentOpt = "all",
    scope: ScopeOpt = "project",
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Print the diff; write nothing.")] = False,
    workspace: WorkspaceOpt = None,
) -> None:
    """Add memcli's hooks and MCP server to the agents' config files (merged, backed up)."""
    from memcli.hooks.install import run_change

    raise typer.Exit(run_change("install", agent, scope, _hooks_root(scope, workspace), dry_run=dry_run))


@hooks_app.command("uninstall")
def hooks_uninstall(
    agent: AgentOpt = "all",
    scope: ScopeOpt = "project",
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Print the diff; write nothing.")] = False,
    workspace: WorkspaceOpt = None,
) -> None:
    """Remove memcli's entries (only those) from the agents' config files."""
    from memcli.hooks.install import run_change

    raise typer.Exit(run_change("uninstall", agent, scope, _hooks_root(scope, workspace), dry_run=dry_run))


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
    from memcli.hooks.install import run_status
    from memcli.workspace import find_root

    root = _open(workspace).root if workspace or scope == "project" else find_root(Path.cwd())
    raise typer.Exit(run_status(agent, root, scope=scope, as_json=json_out))


@hooks_app.command("session-start", hidden=True)
def hooks_session_start(agent: AgentOpt = registry.SESSION_START_DEFAULT,
                        workspace: WorkspaceOpt = None) -> None:
    """(Run by the SessionStart hook.) Print the resident context in the agent's form."""
    from memcli.hooks.start import session_start

    raise typer.Exit(session_start(agent, getattr(sys.stdin, "buffer", None), workspace))


@hooks_app.command("capture", hidden=True)
def hooks_capture(
    session: Annotated[Optional[str], typer.Option("--session")] = None,  # noqa: UP045
    transcript: Annotated[Optional[str], typer.Option("--transcript")] = None,  # noqa: UP045
    cwd: Annotated[Optional[str], typer.Option("--cwd")] = None,  # noqa: UP045
    event: Annotated[Optional[str], typer.Option("--event")] = None,  # noqa: UP045 - hook_event_name
    workspace: WorkspaceOpt = None,
) -> None:
    """(Started by `extract --hook`.) Extract the session once it has ended or gone idle."""
    from memcli.hooks.capture import run_capture

    raise typer.Exit(run_capture(cwd, workspace, session, transcript, event))


skills_app = typer.Typer(name="skills", no_args_is_help=True, add_completion=False, rich_markup_mode=None,
                         help="Knowledge and workflows as the agents' own Agent Skills (SKILL.md folders).")
app.add_typer(skills_app)


@skills_app.command("sync")
def skills_sync(
    agent: Annotated[Optional[list[str]], typer.Option(  # noqa: UP045
        "--agent", "-a", help="claude-code|codex|gemini|all (repeatable; default: the agents wired).",
        show_default=False)] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Print what would change; write nothing.")
                       ] = False,
    as_json: JsonOpt = False,
    workspace: WorkspaceOpt = None,
) -> None:
    """Write every knowledge record and workflow as <slug>/SKILL.md in the agents' skill folders."""
    from memcli.skills.command import run_sync

    raise typer.Exit(run_sync(_open(workspace), list(agent or []), dry_run=dry_run, as_json=as_json))


def main(argv: list[str] | None = None) -> None:
    from memcli.boundary import run_guarded

    sys.exit(run_guarded(lambda: app(args=argv, standalone_mode=False)))
