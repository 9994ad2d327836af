"""Where each kind of document lives for a workspace, and the stable id of each file.

A document's id (its Source `session_id`) is `<kind>/<path>`, the path relative to the kind's base
folder: the workspace root for files in the project (`agents-md/AGENTS.md`,
`cursor-rules/.cursor/rules/testing.mdc`), the agent's memory folder for an agent's own memory
(`claude-memory/MEMORY.md`). So a clone on another machine names the same file the same way, and
no session id (a UUID, never holding `/`) is ever taken for one. A file outside both is named
from the home folder (`markdown/~/notes/x.md`) or absolutely (`markdown//srv/x.md`); such an id
is recorded, but never resolved again (`resolve`: only files inside the workspace or an agent's
memory folder that the import ledger holds are shown).

Checked against (docs/import.md has the list with what each location holds):
- Claude Code 2.1.332: `CLAUDE.md`, `.claude/CLAUDE.md`, `CLAUDE.local.md`, `AGENTS.md`,
  `.claude/AGENTS.md` and `.claude/rules/**/*.md` in the project and its folders; auto memory in
  `autoMemoryDirectory` (user or local settings), else `<claude home>/projects/<encoded project
  root>/memory/` (the git root's, worktrees sharing it), `MEMORY.md` and topic files (`team/` too);
- Codex 0.171.0: `AGENTS.md` (`AGENTS.override.md`) in the project's folders; memories in
  `<codex home>/memories/MEMORY.md` (every project's, in task groups);
- Gemini CLI 0.61.0: `GEMINI.md` in the project's folders; private project memory in
  `<gemini home>/tmp/<project>/memory/` (`MEMORY.md` and its sibling notes);
- Cline: `memory-bank/*.md`; Cursor: `.cursor/rules/**/*.mdc` (and `.md`), `.cursorrules`;
  Windsurf: `.windsurf/rules/**/*.md`, `.windsurfrules`; Copilot: `.github/copilot-instructions.md`,
  `.github/instructions/**/*.instructions.md`.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from memcli import git
from memcli.agents.claude_code import discovery as claude_code
from memcli.agents.codex import discovery as codex
from memcli.agents.documents.kinds import KINDS, in_vendored_folder
from memcli.agents.documents.ledger import Ledger
from memcli.agents.documents.reader import info_of
from memcli.agents.gemini_cli import discovery as gemini_cli
from memcli.agents.parts import configured
from memcli.values import frozen

if TYPE_CHECKING:
    from memcli.config import SessionsConfig
    from memcli.transcript.model import SessionInfo

PROJECT_KINDS = ("claude-md", "agents-md", "gemini-md", "cline-memory-bank", "cursor-rules", "windsurf-rules",
                 "copilot-instructions")
_KEPT_DOT_DIRS = {".claude", ".cursor", ".windsurf", ".github"}
_PRUNED = {"node_modules", "__pycache__", "venv", "dist", "build", "target", "vendor"}
_MAX_WALK = 200_000  # files looked at in a folder that is no git repository


@frozen
class Found:
    kind: str
    path: Path
    id: str  # `<kind>/<path from its base>`: the Source session_id of its blocks
    rel: str  # that path from its base


def classify(rel: str) -> str | None:
    """The kind of a project file from its workspace-relative POSIX path; None for none."""
    parts = PurePosixPath(rel).parts
    name = parts[-1] if parts else ""
    pairs = set(zip(parts, parts[1:], strict=False))
    if name in ("CLAUDE.md", "CLAUDE.local.md") or (".claude", "rules") in pairs and name.endswith(".md"):
        return "claude-md"
    if name in ("AGENTS.md", "AGENTS.override.md"):
        return "agents-md"
    if name == "GEMINI.md":
        return "gemini-md"
    if len(parts) == 2 and parts[0] == "memory-bank" and name.endswith(".md"):
        return "cline-memory-bank"
    if name == ".cursorrules" or (".cursor", "rules") in pairs and name.endswith((".mdc", ".md")):
        return "cursor-rules"
    if name == ".windsurfrules" or (".windsurf", "rules") in pairs and name.endswith(".md"):
        return "windsurf-rules"
    if rel == ".github/copilot-instructions.md" or (
            (".github", "instructions") in pairs and name.endswith(".instructions.md")):
        return "copilot-instructions"
    return None


# ---------------------------------------------------------------- base folders of the agents' memories


def _claude_memory(root: Path, config: SessionsConfig) -> list[Path]:
    claude_home = configured(config.claude_home, root) or claude_code.home()
    found = []
    for settings in (root / ".claude" / "settings.local.json", claude_home / "settings.json"):
        try:
            value = json.loads(settings.read_text(encoding="utf-8")).get("autoMemoryDirectory")
        except (OSError, ValueError, AttributeError, RecursionError):
            continue
        if isinstance(value, str) and value.strip():  # never the checked-in settings (Claude Code ignores it)
            found.append(Path(value).expanduser())
            break
    top = git.top(root)
    for project in dict.fromkeys([root, *([top] if top else [])]):
        dirs = claude_code.project_dirs(claude_home, project)
        found += [folder / "memory" for folder, exact in dirs if exact]
    return list(dict.fromkeys(found))


def _gemini_memory(root: Path, config: SessionsConfig) -> list[Path]:
    gemini_home = configured(config.gemini_home, root) or gemini_cli.home()
    return [folder / "memory" for folder in gemini_cli.project_dirs(gemini_home, root)]


def _codex_memory(root: Path, config: SessionsConfig) -> list[Path]:
    return [(configured(config.codex_home, root) or codex.home()) / "memories"]


_MEMORY_BASES = {"claude-memory": _claude_memory, "gemini-memory": _gemini_memory,
                 "codex-memory": _codex_memory}


def bases(kind: str, root: Path, config: SessionsConfig) -> list[Path]:
    """The folders a kind's ids are relative to (the workspace root for project files)."""
    where = _MEMORY_BASES.get(kind)
    return where(root, config) if where is not None else [root]


def _memory_files(kind: str, base: Path) -> list[Path]:
    if kind == "codex-memory":  # its other files summarise sessions memcli reads itself (docs/import.md)
        return [base / "MEMORY.md"] if (base / "MEMORY.md").is_file() else []
    try:
        found = sorted(p for p in base.rglob("*.md") if p.is_file())
    except OSError:
        return []
    # Gemini keeps skills and pending patches beside its notes: procedures and drafts, not memory
    return [p for p in found if not any(part.startswith(".") or part == "skills"
                                        for part in p.relative_to(base).parts[:-1])]


# ---------------------------------------------------------------- the project's files


def project_files(root: Path) -> list[str]:
    """The workspace's files as root-relative POSIX paths: git's view (tracked, and untracked but
    not ignored) in a repository, else a walk that skips hidden and dependency folders. A
    CLAUDE.local.md is git-ignored by design, so it is looked for beside its CLAUDE.md too."""
    listed = git.text(root, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
    if listed is not None:
        files = [f for f in listed.split("\0") if f]
    else:
        files = list(_walk(root))
    folders = {str(PurePosixPath(f).parent) for f in files if PurePosixPath(f).name == "CLAUDE.md"} | {"."}
    for folder in folders:
        local = PurePosixPath(folder, "CLAUDE.local.md").as_posix()
        if local not in files and (root / local).is_file():
            files.append(local)
    return files


def _walk(root: Path) -> Iterable[str]:
    seen = 0
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in _PRUNED
                             and (not d.startswith(".") or d in _KEPT_DOT_DIRS))
        base = Path(dirpath).relative_to(root)
        for name in sorted(filenames):
            seen += 1
            if seen > _MAX_WALK:
                return
            yield (base / name).as_posix()


# ---------------------------------------------------------------- finding, naming, locating


def discover(root: Path, config: SessionsConfig, kinds: Iterable[str] | None = None) -> list[Found]:
    """Every document of the workspace of the given kinds (all kinds but `markdown` by default)."""
    wanted = set(kinds) if kinds is not None else set(KINDS) - {"markdown"}
    out: list[Found] = []
    if wanted & set(PROJECT_KINDS):
        for rel in sorted(project_files(root)):
            kind = classify(rel)
            if kind in wanted and (root / rel).is_file():
                out.append(Found(kind, root / rel, f"{kind}/{rel}", rel))
    for kind in sorted(wanted & set(_MEMORY_BASES)):
        for base in bases(kind, root, config):
            for path in _memory_files(kind, base):
                rel = path.relative_to(base).as_posix()
                out.append(Found(kind, path, f"{kind}/{rel}", rel))
    return out


_PROJECT_NAMES = {
    "claude-md": "CLAUDE.md, CLAUDE.local.md, .claude/rules/", "agents-md": "AGENTS.md",
    "gemini-md": "GEMINI.md", "cline-memory-bank": "memory-bank/",
    "cursor-rules": ".cursor/rules/, .cursorrules", "windsurf-rules": ".windsurf/rules/, .windsurfrules",
    "copilot-instructions": ".github/copilot-instructions.md, .github/instructions/"}


def looked_in(root: Path, config: SessionsConfig, kinds: Iterable[str] | None = None) -> list[str]:
    """Where `discover` looks, one line each: the workspace (the names it looks for, in any folder
    of the project) and each agent memory folder (with `~` for the home folder)."""
    wanted = set(kinds) if kinds is not None else set(KINDS) - {"markdown"}
    lines = []
    names = [_PROJECT_NAMES[k] for k in PROJECT_KINDS if k in wanted]
    if names:
        lines.append(f"{root} and its folders: {', '.join(names)}")
    home = Path.home()
    for kind in sorted(wanted & set(_MEMORY_BASES)):
        found = bases(kind, root, config)
        if not found and kind == "claude-memory":  # no project folder yet: where it would be
            claude_home = configured(config.claude_home, root) or claude_code.home()
            found = [claude_home / "projects" / claude_code.project_name(str(root)) / "memory"]
        for base in found:
            shown = f"~/{base.relative_to(home).as_posix()}" if home in base.parents else str(base)
            lines.append(f"{shown}/ ({KINDS[kind].title})")
    return lines


def name(kind: str, path: Path, root: Path, config: SessionsConfig) -> Found:
    """A file given by path, as a document of `kind`: its id from the kind's base folder, else
    from the workspace, else `~/…` from the home folder, else its absolute path."""
    path = Path(os.path.abspath(path))
    for base in [*bases(kind, root, config), root]:
        try:
            rel = path.relative_to(Path(os.path.abspath(base))).as_posix()
        except ValueError:
            continue
        return Found(kind, path, f"{kind}/{rel}", rel)
    try:
        rel = "~/" + path.relative_to(Path.home()).as_posix()
    except ValueError:
        rel = path.as_posix()
    return Found(kind, path, f"{kind}/{rel}", rel)


def submodules(root: Path) -> list[str]:
    """The paths of the workspace's git submodules (`.gitmodules`), root-relative POSIX."""
    try:
        text = (root / ".gitmodules").read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return []
    found = re.findall(r"(?m)^\s*path\s*=\s*(.+?)\s*$", text)
    return [p.strip("/") for p in found if p.strip("/")]


def vendored(found: Found, root: Path) -> bool:
    """A document inside the workspace that is third-party text: under a vendored folder
    (`third_party/`, `vendor/`, `node_modules/`, ...) or a git submodule, so not the user's words."""
    path = Path(os.path.abspath(found.path))
    try:
        rel = path.relative_to(Path(os.path.abspath(root))).as_posix()
    except ValueError:
        return False
    return in_vendored_folder(rel) or any(rel.startswith(sub + "/") for sub in submodules(root))


def kind_of(path: Path, root: Path, config: SessionsConfig) -> str:
    """The kind of a file given by path: from its place in the workspace or in an agent's memory
    folder; `markdown` when it is in none of them."""
    path = Path(os.path.abspath(path))
    try:
        found = classify(path.relative_to(Path(os.path.abspath(root))).as_posix())
    except ValueError:
        found = None
    if found is not None:
        return found
    for kind in _MEMORY_BASES:
        for base in bases(kind, root, config):
            if Path(os.path.abspath(base)) in path.parents:
                return kind
    return "markdown"


class DocumentRefused(Exception):
    """A document id that names no file `memcli import` read inside the workspace (or, for an
    agent's memory, inside that memory folder); the message says why."""


def _confined(source_id: str, rel: str) -> str:
    """`rel` as a plain relative POSIX path, or DocumentRefused: the rules of `memcli_read`
    (no absolute path, no `~`, no `..`, no backslash or NUL)."""
    if "\x00" in rel or "\\" in rel:
        raise DocumentRefused(f"document {source_id!r}: its path holds a NUL byte or a backslash")
    if rel.startswith(("/", "~")) or (len(rel) > 1 and rel[1] == ":"):
        raise DocumentRefused(f"document {source_id!r} names a file outside the workspace; a document "
                              "Source names a file `memcli import` read inside it")
    parts = PurePosixPath(rel).parts
    if ".." in parts or not parts:
        raise DocumentRefused(f"document {source_id!r}: its path leaves its folder ('..')")
    return "/".join(p for p in parts if p != ".")


def resolve(source_id: str, root: Path, config: SessionsConfig, recorded: set[str]) -> Found | None:
    """The document an id names: a file inside its kind's base folder (the workspace for project
    files and Markdown, the agent's memory folder for its memory), after symlinks, that `memcli
    import` read (`recorded`: the paths the import ledger holds for the id). None when the id is
    no document id or its file is not here; DocumentRefused when it names anything else, so a
    Source can never make `memcli source` or `memcli_source` read `/etc/passwd` or `.env`."""
    kind, sep, rel = source_id.partition("/")
    if not sep or kind not in KINDS or not rel:
        return None
    rel = _confined(source_id, rel)
    known = {os.path.realpath(p) for p in recorded}
    for base in dict.fromkeys([*bases(kind, root, config), root]):
        real_base = os.path.realpath(base)
        real = os.path.realpath(os.path.join(real_base, rel))
        if os.path.commonpath([real_base, real]) != real_base:
            raise DocumentRefused(f"document {source_id!r} goes through a link that leads out of its "
                                  "folder; refused")
        if not os.path.isfile(real):
            continue
        if real not in known:
            raise DocumentRefused(f"document {source_id!r} is no file `memcli import` read on this "
                                  "machine (its ledger); only imported documents can be shown")
        return Found(kind, Path(base) / rel, source_id, rel)
    return None


def recorded(state_dir: Path | None, source_id: str) -> set[str]:
    """The files the import ledger of `state_dir` says `source_id` was read from."""
    return Ledger.open(state_dir).paths(source_id) if state_dir is not None else set()


def session(source_id: str, root: Path, config: SessionsConfig, state_dir: Path | None) -> SessionInfo | None:
    """The document an id names, as a session's header (what `memcli source` and `why` read);
    DocumentRefused as `resolve` says."""
    found = resolve(source_id, root, config, recorded(state_dir, source_id))
    return info_of(found.kind, found.id, found.path) if found is not None else None
