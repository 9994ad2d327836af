"""`memcli init`: lay out a workspace. Running it again changes nothing."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from memcli import onpath
from memcli.atomicio import atomic_write_bytes, atomic_write_text
from memcli.config import CONFIG_FILE, DEFAULT_CONFIG_TEXT
from memcli.merge.setup import in_git_repo, register
from memcli.workspace import KIND_DIRS, STAGING_DIR, STATE_DIR_NAME, SUMMARY_PATH

GITIGNORE_LINES = (f"/{STAGING_DIR}/", f"/{STATE_DIR_NAME}/")


def _summary_text() -> str:
    now = dt.datetime.now().astimezone().isoformat(timespec="seconds")
    return (f"---\nupdated_at: {now}\n---\n# Project memory\n\n"
            "Nothing here yet: `memcli consolidate` keeps this overview (roughly 1-5k tokens).\n")


def run(workspace: Path | None = None) -> int:
    """Lay out the workspace at `workspace` (default: the current directory)."""
    root = (workspace or Path.cwd()).resolve()
    created: list[str] = []
    for rel in (*KIND_DIRS.values(), STAGING_DIR):
        folder = root / rel
        if not folder.is_dir():
            folder.mkdir(parents=True, exist_ok=True)
            created.append(rel + "/")
        keep = folder / ".gitkeep"
        if rel != STAGING_DIR and not any(folder.iterdir()):
            atomic_write_bytes(keep, b"")  # so git keeps the empty folder
    summary = root / SUMMARY_PATH
    if not summary.exists():  # the record the consolidation model rewrites: valid from the start
        atomic_write_text(summary, _summary_text())
        created.append(SUMMARY_PATH)
    config = root / CONFIG_FILE
    if not config.exists():
        atomic_write_text(config, DEFAULT_CONFIG_TEXT)
        created.append(CONFIG_FILE)
    gitignore = root / ".gitignore"
    existing = gitignore.read_text(encoding="utf-8") if gitignore.exists() else ""
    present = {line.strip() for line in existing.splitlines()}
    missing = [line for line in GITIGNORE_LINES if line not in present]
    if missing:
        block = (
            "" if not existing or existing.endswith("\n") else "\n"
        ) + "# memcli: staging and local state\n"
        atomic_write_text(gitignore, existing + block + "\n".join(missing) + "\n")
        created.append(".gitignore entries")
    created += register(root)
    if created:
        print(f"Initialised memcli workspace in {root}: {', '.join(created)}")
    else:
        print(f"memcli workspace in {root} is already initialised")
    registered = "merge driver in git config" in created
    if registered and (no_memcli := onpath.warning("git's merge driver for records")):
        print(no_memcli)
    if not in_git_repo(root):
        print("Not a git repository yet: run `memcli init` again after `git init` to register the merge "
              "driver for records")
    return 0
