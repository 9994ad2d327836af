"""Workspace discovery, the record layout, and the local state folder.

A workspace is found like git finds its root: walk up from a directory to the first one that has
`memory/` or a config file. Paths inside a workspace are handled as POSIX strings relative to the
root (`memory/decisions/use-sqlite.md`), the same on every path (tool, commit, CI).
"""

from __future__ import annotations

import enum
import functools
import os
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from memcli.atomicio import left_by
from memcli.config import STATE_DIR_ENV as STATE_DIR_ENV  # (kept importable from here)
from memcli.config import STATE_DIR_NAME as STATE_DIR_NAME
from memcli.config import Config, load_config, state_dir_of
from memcli.errors import WorkspaceNotFound
from memcli.roots import CONFIG_FILE as CONFIG_FILE  # (kept importable from here)
from memcli.roots import find_root as find_root
from memcli.roots import is_root as is_root
from memcli.values import frozen

STAGING_DIR = "memory/_staging"


class Kind(enum.StrEnum):
    SUMMARY = "summary"
    DECISION = "decision"
    REQUEST = "request"
    KNOWLEDGE = "knowledge"
    WORKFLOW = "workflow"


# Folder of each kind whose files are `<folder>/<slug>.md`.
KIND_DIRS: dict[Kind, str] = {
    Kind.DECISION: "memory/decisions",
    Kind.REQUEST: "memory/requests",
    Kind.WORKFLOW: "memory/workflow",
    Kind.KNOWLEDGE: "knowledge",
}
SUMMARY_PATH = "memory/summary.md"
_DIR_KINDS = {d: k for k, d in KIND_DIRS.items()}


@frozen
class Location:
    """Where a workspace-relative path sits in the layout."""

    kind: Kind | None  # None: no record lives here
    slug: str | None = None
    problem: str | None = None  # why it is not a record location (unknown-location)
    ignored: bool = False  # staging, hidden files: not records and not findings (but a leftover temp file)


@functools.lru_cache(maxsize=65536)  # called several times per file on 10 000-record workspaces
def locate(rel: str) -> Location:
    """Classify a workspace-relative POSIX path (of a file)."""
    folder, _, name = rel.rpartition("/")
    kind = _DIR_KINDS.get(folder)
    if kind is not None and name.endswith(".md") and not name.startswith("."):  # a record as listed
        return Location(kind, name[: -len(".md")])
    return classify(rel)


def classify(rel: str) -> Location:
    """`locate(rel)` in full: any spelling of a path (`./`, `//`, hidden parts, staging, the summary)."""
    parts = [p for p in rel.split("/") if p not in ("", ".")]
    if not parts or parts[0] not in ("memory", "knowledge"):
        return Location(None, problem="outside memory/ and knowledge/", ignored=True)
    if any(p.startswith(".") for p in parts):
        if (target := left_by(parts[-1])) and classify("/".join([*parts[:-1], target])).kind is not None:
            return Location(None, problem=f"{parts[-1]} is what an interrupted write of {target} left"
                            " (memcli was stopped before it was renamed into place): delete it")
        return Location(None, ignored=True)  # .gitkeep, editor swap files
    if len(parts) > 2 and parts[0] == "memory" and parts[1] == STAGING_DIR.split("/")[1]:
        return Location(None, ignored=True)
    norm = "/".join(parts)
    if norm == SUMMARY_PATH:
        return Location(Kind.SUMMARY, "summary")
    parent = "/".join(parts[:-1])
    name = parts[-1]
    kind = _DIR_KINDS.get(parent)
    if kind is None:
        if parent == "memory":
            return Location(None, problem="only summary.md lives directly in memory/")
        return Location(
            None,
            problem=f"{parent or name}/ is not a record folder (use memory/decisions, memory/requests, "
            "memory/workflow or knowledge)",
        )
    if not name.endswith(".md"):
        return Location(None, problem=f"{parent}/ holds only <slug>.md record files")
    return Location(kind, name[: -len(".md")])


def clone_root_of(root: Path) -> Path:
    """Where the workspace at `root` keeps what every worktree of its clone shares (staging, the
    consolidation lock, shared-staging state): in a linked worktree (`git worktree add`), the same
    folder of the main worktree, or of `<common git dir>/memcli/` for a bare clone's worktrees;
    everywhere else `root` itself. Read from the files git keeps (`.git` → `gitdir:` → `commondir`),
    so no git process is started."""
    for top in (root, *root.parents):
        dot = top / ".git"
        if dot.is_dir():
            return root  # the main worktree (or a plain clone)
        if not dot.is_file():
            continue
        try:
            line = dot.read_text(encoding="utf-8").strip()
            gitdir = (top / line.removeprefix("gitdir:").strip()).resolve()
            common = (gitdir / (gitdir / "commondir").read_text(encoding="utf-8").strip()).resolve()
        except (OSError, ValueError):
            return root  # a submodule's `.git` file (no commondir), or one git would not read either
        prefix = root.relative_to(top)
        main = common.parent if common.name == ".git" else common / "memcli"
        return main / prefix
    return root


@dataclass
class Workspace:
    root: Path
    config: Config = field(default_factory=Config)

    @classmethod
    def open(cls, path: Path | None = None, *, search: bool = True) -> Workspace:
        """The workspace at `path` (exactly, when given) or found above the current directory."""
        if path is not None:
            root = Path(path).resolve()
            if not root.is_dir():
                raise WorkspaceNotFound(f"workspace {path} is not a directory")
        else:
            found = find_root(Path.cwd()) if search else None
            if found is None:
                raise WorkspaceNotFound(
                    "no memcli workspace here or above (no memory/ folder or memcli.toml); "
                    "run `memcli init` or pass --workspace PATH"
                )
            root = found
        return cls(root, load_config(root))

    def abspath(self, rel: str) -> Path:
        return self.root / rel

    def relpath(self, path: Path) -> str:
        """Workspace-relative POSIX path of `path` (absolute or relative to the current directory)."""
        absolute = Path(os.path.abspath(path))
        return absolute.relative_to(self.root).as_posix()

    @cached_property
    def state_dir(self) -> Path:
        """Local, git-ignored state (index, ledger, run log, metrics); MEMCLI_STATE_DIR overrides."""
        return state_dir_of(self.root)

    @cached_property
    def clone_root(self) -> Path:
        """This workspace's folder in the clone's main worktree (see clone_root_of): the root of
        every worktree's shared staging."""
        return clone_root_of(self.root)

    @property
    def staging_dir(self) -> Path:
        """Staging, shared by every worktree of the clone (items carry their branch)."""
        return self.clone_root / STAGING_DIR

    @property
    def clone_state_dir(self) -> Path:
        """Local state shared by the clone's worktrees (MEMCLI_STATE_DIR overrides, as state_dir)."""
        return self.state_dir if self.clone_root == self.root else state_dir_of(self.clone_root)

    def iter_files(self) -> list[str]:
        """Every file and stray directory under memory/ and knowledge/, workspace-relative, sorted.

        A directory that sits where a record file should be (`memory/decisions/x.md/`) is listed too,
        so the Linter can report it. Symlinks are listed, never followed.
        """
        out: list[str] = []
        for top in ("memory", "knowledge"):
            base = self.root / top
            if not base.is_dir() or base.is_symlink():
                continue
            for dirpath, dirnames, filenames in os.walk(base):
                rel_dir = Path(dirpath).relative_to(self.root).as_posix()
                if rel_dir == STAGING_DIR or rel_dir.startswith(STAGING_DIR + "/"):
                    dirnames[:] = []
                    continue
                keep = []
                for d in dirnames:
                    if d.endswith(".md") or os.path.islink(os.path.join(dirpath, d)):
                        out.append(f"{rel_dir}/{d}")
                    elif not d.startswith("."):
                        keep.append(d)
                dirnames[:] = keep
                out.extend(f"{rel_dir}/{f}" for f in filenames)
        out.sort()
        return out
