"""`memcli lint`: the CI and commit paths of the Linter (the commit hook's shape comes through
memcli.lean without Typer: nothing here imports it)."""

from __future__ import annotations

import gc
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from memcli.commands import json_format, open_workspace, workspace_of_paths
from memcli.errors import EXIT_FINDINGS, EXIT_OK, UsageError, WorkspaceNotFound
from memcli.lint.cache import ResultCache
from memcli.lint.engine import lint
from memcli.lint.format import FORMATS, render_github, render_json, render_plain, render_sarif, render_text
from memcli.lint.snapshot import Snapshot
from memcli.skills.place import is_skill_file
from memcli.store import open_store
from memcli.workspace import Workspace, is_root, locate

if TYPE_CHECKING:
    from rich.console import Console


def resolve_format(fmt: str) -> str:
    if fmt not in FORMATS:
        raise UsageError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    if fmt != "auto":
        return fmt
    if os.environ.get("GITHUB_ACTIONS") == "true":
        return "github"
    return "text"


def _targets(workspace: Workspace, paths: list[Path], paths_only: bool = False) -> list[str] | None:
    """Workspace-relative record paths to lint (None: all); a folder stands for every file under it.

    With `paths_only` (hooks), no paths means no files: a commit that only deletes records still
    gets the workspace-wide reference checks, without linting every untouched file.
    """
    if not paths:
        return [] if paths_only else None
    out: list[str] = []
    files = None
    for path in paths:
        if not os.path.lexists(path):
            raise UsageError(f"{path}: no such file or folder")
        try:
            rel = workspace.relpath(path)
        except ValueError:
            raise UsageError(f"{path} is outside the workspace {workspace.root}") from None
        if (workspace.root / rel).is_dir() and not rel.endswith(".md"):
            files = files if files is not None else workspace.iter_files()
            prefix = "" if rel == "." else rel.rstrip("/") + "/"
            out.extend(f for f in files if f.startswith(prefix))
        elif locate(rel).problem == "outside memory/ and knowledge/":
            if is_skill_file(rel):
                out.append(rel)  # an agent's SKILL.md: skill-invalid checks it
            continue  # e.g. pre-commit passing README.md: not memcli's to lint
        else:
            out.append(rel)
    return out


def _colour_wanted() -> bool:
    """Colour on a terminal (as rich decides: FORCE_COLOR / NO_COLOR / TTY), plain otherwise."""
    if os.environ.get("NO_COLOR"):
        return False
    return bool(os.environ.get("FORCE_COLOR")) or sys.stdout.isatty()


def _console() -> Console:
    from rich.console import Console  # here: plain output (hooks, CI logs) never loads rich

    return Console(file=sys.stdout, highlight=False)


def run(paths: list[Path] | None = None, *, fmt: str = "auto", strict: bool = False, paths_only: bool = False,
        no_cache: bool = False, as_json: bool = False, workspace: Path | None = None) -> int:
    """`memcli lint [PATHS]`: the workspace `--workspace` names, else the one above the first path
    (or the current directory)."""
    fmt = json_format(fmt, as_json, "auto")
    ws = open_workspace(workspace if workspace else workspace_of_paths(paths))
    return check(ws, list(paths or []), fmt=fmt, strict=strict, paths_only=paths_only, use_cache=not no_cache)


def check(
    workspace: Workspace,
    paths: list[Path],
    *,
    fmt: str = "auto",
    strict: bool = False,
    paths_only: bool = False,
    use_cache: bool = True,
    console: Console | None = None,
) -> int:
    """Lint `paths` of `workspace` (all of it without paths, none with `paths_only`) and print the
    findings in `fmt`; the exit code says whether any failed."""
    fmt = resolve_format(fmt)
    if not is_root(workspace.root):  # `-w wrong/folder` in CI must not pass with "0 files checked"
        raise WorkspaceNotFound(f"{workspace.root} is not a memcli workspace (no memory/ folder or "
                                "memcli.toml): pass the right --workspace, or run `memcli init` there")
    targets = _targets(workspace, paths, paths_only)
    # The record store (memcli.store) answers for every record it keeps; --no-cache reads the files.
    store = open_store(workspace) if use_cache else None
    # Parsing thousands of records allocates millions of small acyclic objects; the cyclic GC
    # would keep scanning them for nothing (they are freed by reference counting).
    collecting = gc.isenabled()
    gc.disable()
    try:
        if store is not None:
            store.refresh()
        cache = ResultCache(store, workspace.config.lint) if store is not None else None
        snapshot = Snapshot(workspace, cache=cache, store=store)
        findings = lint(workspace, targets, snapshot=snapshot)
        if cache is not None:
            cache.save(whole=targets is None)
    finally:
        if collecting:
            gc.enable()
        if store is not None:
            store.close()
    checked = len([p for p in (targets if targets is not None else snapshot.files) if not locate(p).ignored])
    if fmt == "json":
        print(render_json(findings, checked))
    elif fmt == "sarif":
        print(render_sarif(findings, checked))
    elif fmt == "github":
        prefix = os.path.relpath(workspace.root, Path.cwd()).replace(os.sep, "/")
        print(render_github(findings, checked, "" if prefix == "." else prefix + "/"))
    else:
        if console is None and not _colour_wanted():
            render_plain(findings, checked, sys.stdout)
        else:
            render_text(findings, checked, console or _console())
    failed = any(f.is_error for f in findings) or (strict and findings)
    return EXIT_FINDINGS if failed else EXIT_OK
