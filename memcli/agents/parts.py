"""What an agent's `load()` returns (base.py): the parts that read, find and wire it, each declared
by one of its modules, and the helpers those modules share. Never imported by the hooks' start-up
paths: declaring an agent (base.py) needs none of this.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from memcli import plainyaml

if TYPE_CHECKING:
    import datetime as dt

    from memcli.agents.targets import ConfigFile
    from memcli.config import SessionsConfig
    from memcli.transcript.model import Entry, SessionInfo


class Claim(NamedTuple):
    """A reader's "this file is mine", with what its `describe` needs (records, a document, None)."""

    head: Any


def whole_file(info: SessionInfo, lines_read: int) -> tuple[int, int]:
    """The file lines a session spans, when a file holds one session."""
    return 0, lines_read - 1


class Reader(NamedTuple):
    """How an agent's session files are read. A file is offered to every reader in registry order,
    first whole (`claim_file`, on its first 64 KiB), then record by record (`claim_record`, on its
    first JSONL records): the first claim wins, so each reader claims by markers only its files carry."""

    describe: Callable[[Path, Any], list[SessionInfo]]  # the sessions of a claimed file, header fields
    entries: Callable[..., Iterator[Entry]]  # (info, stats) -> entries; (info, stats, cursor) if resumable
    resumable: bool = False  # entries() marks resume points on a Cursor (append-only JSONL)
    claim_file: Callable[[Path, bytes], Claim | None] | None = None
    claim_record: Callable[[dict[str, Any]], bool] | None = None  # its describe() gets the first records
    lines: Callable[[SessionInfo, int], tuple[int, int]] = whole_file  # (info, lines read) -> first, last


def home(env: str, default: str) -> Path:
    """An agent's home folder: its environment variable if set, else `~/<default>`."""
    value = os.environ.get(env)
    return Path(value).expanduser() if value else Path.home() / default


def configured(value: str | None, root: Path) -> Path | None:
    """A folder set in memcli.toml (`[sessions] claude_home = ...`): relative to the workspace."""
    if not value:
        return None
    path = Path(value).expanduser()
    return path if path.is_absolute() else root / path


def inside(cwd: str, roots: set[Path]) -> bool:
    """Did a session that ran in `cwd` run in one of `roots` (the workspace) or a folder inside it?"""
    path = Path(cwd)
    return any(path == r or r in path.parents for r in roots)


class Discovery(NamedTuple):
    """Where an agent's sessions are."""

    is_transcript: Callable[[Path], bool]  # a file in a folder given explicitly: one of its transcripts?
    # (workspace root, [sessions] config, since) -> its session files for the workspace; None: it keeps
    # no sessions where memcli could look (they are given as paths)
    files: Callable[[Path, SessionsConfig, dt.datetime | None], Iterable[Path]] | None = None
    # (session, workspace root) -> is it the workspace's? For a file holding the sessions of every
    # folder (OpenCode's database): discovery keeps only the workspace's; None: all of a file's are
    owns: Callable[[SessionInfo, Path], bool] | None = None


def _nothing(scope: str, root: Path | None) -> list[str]:
    return []


class Wiring(NamedTuple):
    """What `memcli hooks install | uninstall | status` does for an agent with hooks."""

    config_files: Callable[[str, Path | None], list[ConfigFile]]  # (scope, workspace root or None)
    install_notes: Callable[[str, Path | None], list[str]] = _nothing  # steps only the user can take
    states: Callable[[str, Path | None], list[str]] = _nothing  # its own view: trusted, approved ...


class Listed(NamedTuple):
    """A skill as an agent lists it: its name, description and SKILL.md."""

    name: str
    description: str
    path: Path
    no_model: bool = False  # `disable-model-invocation: true` (Claude Code's field, Copilot's too)
    files: tuple[str, ...] = ()  # of a skill memcli writes: every file of its folder (Pi: a .gitignore)


class Listing(NamedTuple):
    """What an agent puts in its model's context of the skills memcli wrote for it, by name."""

    shortened: tuple[str, ...] = ()  # listed with a shortened description
    bare: tuple[str, ...] = ()  # listed by name only
    omitted: tuple[str, ...] = ()  # not listed at all
    rule: str = ""  # the agent's cap, in words (docs, `memcli skills sync`)


def lists_all(skills: list[Listed], root: Path) -> Listing:
    """An agent that lists every skill with its whole description."""
    return Listing()


def folder_skills(folder: Path, skip: set[Path] = frozenset()) -> list[Listed]:  # type: ignore[assignment]
    """The skills in a skills folder (`<name>/SKILL.md`) as an agent lists them, those in `skip`
    left out; a file whose frontmatter cannot be read counts by its folder's name."""
    import yaml  # here: only skills sync lists a skills folder; the hooks' start-up paths load this module

    out = []
    try:
        found = sorted(folder.glob("*/SKILL.md"))
    except OSError:
        return []
    for path in found:
        if path in skip:
            continue
        meta: Any = None
        try:
            text = path.read_text(encoding="utf-8")
            if text.startswith("---"):
                meta = plainyaml.load(text.split("\n---", 1)[0][3:])
        except (OSError, UnicodeDecodeError, yaml.YAMLError, plainyaml.Refused):
            pass  # listed by its folder's name (`memcli lint` says what is wrong with a SKILL.md)
        meta = meta if isinstance(meta, dict) else {}
        name, description = meta.get("name"), meta.get("description")
        out.append(Listed(name if isinstance(name, str) and name else path.parent.name,
                          " ".join(description.split()) if isinstance(description, str) else "", path,
                          meta.get("disable-model-invocation") is True))
    return out


def skill_stamps(folders: Iterable[Path], names: tuple[str, ...] = ("SKILL.md",)) -> str:
    """The size and modification time of these files of every skill in these folders: what a
    listing read from them, so a change there (a skill added, its description edited) shows."""
    out = []
    for folder in map(str, folders):  # plain strings: it runs on every unchanged sync
        try:
            entries = sorted(e.name for e in os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            for name in names:
                path = os.path.join(folder, entry, name)
                try:
                    st = os.stat(path)
                except OSError:
                    continue
                out.append(f"{path}:{st.st_size}:{st.st_mtime_ns}")
    return "\n".join(out)


def claude_fields(model: bool, user: bool) -> dict[str, object]:
    """Claude Code's words for "only when asked" and "not in the menu", which Copilot CLI reads too."""
    out: dict[str, object] = {}
    if not model:
        out["disable-model-invocation"] = True
    if not user:
        out["user-invocable"] = False
    return out


def env_budget(variable: str, default: int) -> int:
    """An agent's listing budget: its environment variable when a positive whole number, else its default."""
    value = os.environ.get(variable, "")
    return int(value) if value.isdigit() and int(value) > 0 else default


def no_files(model: bool, user: bool) -> dict[str, str]:
    return {}


def no_inputs(root: Path) -> str:
    return ""


class SkillDialect(NamedTuple):
    """How an agent's SKILL.md says what a record's `model_invocation` / `user_invocable` say, and
    what it lists (an agent's skills.py; the folders are its declaration's SKILLS)."""

    # (model may invoke, user may invoke) -> the frontmatter fields that say so, besides name and
    # description; None: it cannot say so, and the record is not written for it
    fields: Callable[[bool, bool], dict[str, Any] | None]
    # the same -> files beside SKILL.md that say so (Codex: agents/openai.yaml), path -> text
    files: Callable[[bool, bool], dict[str, str]] = no_files
    # the skills memcli writes for it, in the project at root -> what its model is shown
    listing: Callable[[list[Listed], Path], Listing] = lists_all
    # the project root -> a fingerprint of what else `listing` reads (its settings, the other
    # skills it lists): `memcli skills sync` does the work again when it changes
    inputs: Callable[[Path], str] = no_inputs


class Run(NamedTuple):
    """One headless run of an agent to start (a HeadlessDialect builds it): the command line, its
    first word the agent's executable; what it reads on stdin; variables added to the environment;
    files written into the run's own empty folder first (relative path, folders made -> text)."""

    argv: list[str]
    stdin: str = ""
    env: dict[str, str] = {}  # a NamedTuple default, never mutated
    files: dict[str, str] = {}


class Reply(NamedTuple):
    """What a headless run said, read from its output (HeadlessDialect.read)."""

    text: str = ""  # its final answer
    structured: Any = None  # the object its own structured-output option returned, if it has one
    prompt_tokens: int = 0  # every input token it reports, cached ones included
    completion_tokens: int = 0
    cost_usd: float | None = None  # what it reports having spent; None where it says nothing
    turns: int = 0  # model calls it reports (0: not reported)
    error: str | None = None  # what it reported as failed, in its own words
    status: int | None = None  # the HTTP status of the model API's refusal, where it reports one
    denied: tuple[str, ...] = ()  # tools it was refused (its permission log), by name


class McpTools(NamedTuple):
    """memcli's MCP server for one working run: the name the agent knows it by, how to start it
    (`memcli mcp --relay ...`: command, arguments and the variables it needs, which an agent that
    starts its servers in a clean environment must pass), and its tools' names (the only ones the
    run may call)."""

    server: str
    command: str
    args: list[str]
    tools: list[str]
    env: dict[str, str] = {}  # a NamedTuple default, never mutated


class HeadlessDialect(NamedTuple):
    """How memcli runs an agent as its model (an agent's headless.py; its declaration's HEADLESS).

    `ask`: (system prompt, prompt, JSON schema or None, the agent's model or None, run folder) ->
    one answer with no tools at all; with a schema, through the agent's own schema option where it
    has one (else the prompt asks for it: the caller validates either way).
    `work`: (system prompt, prompt, memcli's tools, model or None, run folder) -> a run that may
    call memcli's MCP tools and nothing else: its own file-writing, shell and web tools switched
    off by its own flags. None: it cannot (memcli consolidates with it no further than extract).
    `read`: (stdout, stderr) -> its reply; an output it cannot read is a Reply with an error.
    `forget`: (run folder) -> None, after every run, however it ended: removes what the agent kept
    of the run in its own home despite its flags (Copilot CLI's session store, Gemini CLI's chat of
    the folder); None: it keeps nothing there."""

    ask: Callable[[str, str, dict[str, Any] | None, str | None, Path], Run]
    read: Callable[[str, str], Reply]
    work: Callable[[str, str, McpTools, str | None, Path], Run] | None = None
    login: str = ""  # how its user logs in (the error for "not logged in" says it)
    schema_option: bool = False  # `ask` passes the schema to an option of its own (else: the prompt)
    forget: Callable[[Path], None] | None = None


class Parts(NamedTuple):
    reader: Reader
    discovery: Discovery
    wiring: Wiring | None = None  # present exactly when the agent has hooks
    skills: SkillDialect | None = None  # present when it loads Agent Skills (its SKILLS folders)
    headless: HeadlessDialect | None = None  # present when memcli can run it as a model (HEADLESS)
