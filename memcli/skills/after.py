"""The calls into skills from elsewhere: after a consolidation (its skills committed in a commit
of their own when `[skills] commit` is on), at `memcli hooks install`, at `memcli hooks uninstall`.
Each runs only with `[skills] auto` on, and never fails the command that called it: what it could
not do is one line on stderr.
"""

from __future__ import annotations

import sys
from pathlib import Path

from memcli import git
from memcli.errors import MemcliError
from memcli.skills import place
from memcli.skills.report import headline, render_text
from memcli.skills.sync import Result, sync
from memcli.workspace import Workspace


def _open(root: Path) -> Workspace | None:
    try:
        ws = Workspace.open(root)
    except MemcliError:
        return None  # a broken config: every command reports it
    return ws if ws.config.skills.auto else None


def after_consolidation(ws: Workspace, committed: bool) -> None:
    """Sync for the wired agents; with `[skills] commit`, commit what changed after a commit."""
    if not ws.config.skills.auto:
        return
    try:
        targets = place.wired(ws.root)
        if not targets:
            return
        result = sync(ws, targets)
        note = ""
        if committed and ws.config.skills.commit and (result.written or result.removed):
            note = commit(ws.root, result)
        print(f"consolidate: {headline(result)}{note}", file=sys.stderr)
    except (MemcliError, OSError) as exc:
        print(f"consolidate: skills not synced: {exc}; run `memcli skills sync`", file=sys.stderr)


def commit(root: Path, result: Result) -> str:
    """Commit the skill folders this sync changed, and only those (`git commit -- <paths>`)."""
    def run(*args: str) -> tuple[int, str, str]:
        done = git.run(root, *args)
        out, err = done.stdout.decode("utf-8", "surrogateescape"), done.stderr.decode("utf-8", "replace")
        return done.returncode, out, err

    tracked = run("ls-files", "-z", "--", *result.removed)[1].split("\0") if result.removed else []
    paths = result.written + [r for r in result.removed if any(p.startswith(r + "/") for p in tracked)]
    if not paths:
        return ""
    added = run("add", "-A", "--", *result.written) if result.written else (0, "", "")
    done = added if added[0] else run("commit", "-q", "-m", _message(result), "--", *paths)
    if done[0]:
        why = done[2].strip().splitlines()
        return f"; not committed ({why[-1] if why else 'git failed'}): commit them yourself"
    return "; committed"


def _message(result: Result) -> str:
    lines = [f"skills: {len(result.written)} written, {len(result.removed)} removed (memcli skills sync)", ""]
    lines += [f"wrote {rel}/" for rel in result.written] + [f"removed {rel}/" for rel in result.removed]
    return "\n".join(lines) + "\n"


def after_install(root: Path | None) -> None:
    """Sync for every agent now wired (`hooks install` has just written its hooks)."""
    ws = _open(root) if root is not None else None
    if ws is None:
        return
    try:
        targets = place.wired(ws.root)
        if targets:
            print(render_text(sync(ws, targets), verbose=False), end="")
    except (MemcliError, OSError) as exc:
        print(f"skills: not synced: {exc}; run `memcli skills sync`", file=sys.stderr)


def after_uninstall(root: Path | None, options: list[str]) -> None:
    """Remove the skills memcli wrote for agents no longer wired, except in a folder an agent still
    wired reads."""
    ws = _open(root) if root is not None else None
    if ws is None:
        return
    try:
        gone = place.chosen(options)
        targets = place.wired(ws.root)
        result = sync(ws, targets, scope=[t for t in gone if t not in targets] + targets)
        if result.removed:
            print(headline(result))
    except (MemcliError, OSError) as exc:
        print(f"skills: not removed: {exc}; run `memcli skills sync`", file=sys.stderr)
