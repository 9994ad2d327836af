"""Which staging items a consolidation on the checked-out branch takes: memory moves with the branch.

Staging is one pool per clone (every worktree's sessions land in it), and each item names the
branch its session worked on (staging's `branch`). A consolidation on branch H takes:
- items of H itself;
- items with no branch (files written before memcli recorded it, sessions outside git or on a
  detached HEAD): they belong to any branch;
- items of a branch X whose work is in H: X's tip (the branch as it is now, local or
  remote-tracking; once it is deleted, the last tip memcli saw here, else the item's commit) is an
  ancestor of H, or its commits' patches are in H (a rebase, or a squash of that very tip) — unless
  X has no work of its own (its tip is still where it was created, so it holds nothing H lacks), X
  is where H was created (H's reflog: a branch does not take its base's items), or X is the
  remote's default branch (`origin/HEAD`), whose items wait for it.
Every other item waits for its branch; `memcli status` lists them per branch. A branch deleted
without its work reaching H counts down from the day memcli first found it gone: after
`memory.branch_staging_days` its items go (moved to the state folder's `expired-staging/`, never
just deleted), and `status`, `gc-report` and the consolidation that drops them say so.

What memcli saw of each branch (tip, creation point, when it went, the last verdict and what it
was judged on) is kept beside the clone's shared state (`branches.json`), so a deleted branch is
still judged by its last tip and an unchanged one is not judged again.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memcli import history
from memcli.atomicio import atomic_delete, atomic_write_bytes, atomic_write_text
from memcli.consolidate.inputs import StagingEntry, StagingSet
from memcli.git import branches as git_branches
from memcli.team.state import SharedState
from memcli.values import frozen
from memcli.workspace import Workspace

SEEN_FILE = "branches.json"
EXPIRED_DIR = "expired-staging"
HERE, MERGED, WAITING, GONE, EXPIRED = "here", "merged", "waiting", "gone", "expired"


@frozen
class Group:
    """The items of one branch other than the checked-out one, and what becomes of them here."""

    branch: str
    ids: tuple[str, ...]
    state: str  # merged (taken here) | waiting | gone (deleted, not merged) | expired (gone too long)
    why: str
    gone_since: dt.datetime | None = None
    expires: dt.datetime | None = None

    def to_json(self) -> dict[str, Any]:
        return {"branch": self.branch, "files": len(self.ids), "ids": list(self.ids), "state": self.state,
                "why": self.why, "gone_since": _iso(self.gone_since), "expires": _iso(self.expires)}


@frozen
class Routing:
    on: str | None  # the branch checked out (None: a detached HEAD, or not in git)
    here: frozenset[str]  # the staging ids a consolidation here takes
    groups: tuple[Group, ...] = field(default_factory=tuple)

    def take(self, staged: StagingSet) -> StagingSet:
        """`staged` without the items that wait for another branch (invalid files stay reported)."""
        return StagingSet(tuple(e for e in staged.entries if e.id in self.here), staged.invalid)

    @property
    def waiting(self) -> tuple[Group, ...]:
        return tuple(g for g in self.groups if g.state != MERGED)

    @property
    def expired(self) -> tuple[Group, ...]:
        return tuple(g for g in self.groups if g.state == EXPIRED)


def _iso(when: dt.datetime | None) -> str | None:
    return when.isoformat(timespec="seconds") if when else None


def _parse(when: Any) -> dt.datetime | None:
    try:
        return dt.datetime.fromisoformat(when) if isinstance(when, str) else None
    except ValueError:
        return None


def _seen_path(ws: Workspace) -> Path:
    return ws.clone_state_dir / SEEN_FILE


def _load_seen(ws: Workspace) -> dict[str, dict[str, Any]]:
    try:
        data = json.loads(_seen_path(ws).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {k: v for k, v in data.items() if isinstance(v, dict)} if isinstance(data, dict) else {}


@dataclass
class _Git:
    """The facts of the checked-out branch, read once per routing."""

    root: Path
    on: str | None
    head: str
    created: str | None  # where the checked-out branch was created (its reflog's oldest entry)
    trunk: str | None


def _open(ws: Workspace) -> _Git | None:
    top = git_branches.worktree_top(ws.root)
    head = git_branches.head(ws.root) if top is not None else None
    if top is None or head is None:
        return None  # outside git, or no commit yet: no branch can be told from another
    on = git_branches.current(top)
    return _Git(top, on, head, git_branches.forked_at(top, on) if on else None, git_branches.trunk(top))


def _reached(g: _Git, name: str, tip: str | None, forked: str | None) -> str | None:
    """Why branch `name`'s work is in the checked-out branch, or None when it is not."""
    if tip is None or (forked is not None and tip == forked):
        return None  # nothing known, or no commit of its own
    if name == g.trunk:
        return None  # the default branch's items wait for it, whatever branches were made from it
    if git_branches.is_ancestor(g.root, tip, g.head):
        if g.created is not None and git_branches.is_ancestor(g.root, tip, g.created):
            return None  # the checked-out branch was made from it: it is this one's base
        return f"merged into {g.on or 'HEAD'}"
    if git_branches.patches_in(g.root, tip, g.head):
        return f"its commits are in {g.on or 'HEAD'} (rebased or squashed)"
    return None


def route(ws: Workspace, entries: Iterable[StagingEntry], *, now: dt.datetime | None = None,
          observe: bool = True) -> Routing:
    """Sort `entries` into those a consolidation here takes and those that wait, per branch.
    `observe`: remember the tips seen and the branches found gone (False: a report that changes
    nothing, `gc-report`)."""
    now = now or dt.datetime.now(dt.UTC)
    entries = list(entries)
    g = _open(ws)
    by_branch: dict[str, list[StagingEntry]] = {}
    here = set()
    for entry in entries:
        name = entry.data.branch.name if entry.data.branch is not None else None
        if g is None or name is None or name == g.on:
            here.add(entry.id)
        else:
            by_branch.setdefault(name, []).append(entry)
    if g is None or not by_branch:
        return Routing(g.on if g else None, frozenset(here))
    seen = _load_seen(ws)
    before = json.dumps(seen, sort_keys=True)
    days = ws.config.memory.branch_staging_days
    groups = []
    tips = git_branches.tips(g.root)
    for name, items in sorted(by_branch.items()):
        known = seen.setdefault(name, {})
        live = tips.get(name)
        recorded = [e.data.branch for e in items if e.data.branch is not None]
        forked = known.get("forked_at") or next((b.forked_at for b in recorded if b.forked_at), None)
        if live is not None:
            forked = forked or git_branches.forked_at(g.root, name)
            if known.get("tip") != live:
                known["seen"] = _iso(now)  # when this tip was first seen (the file changes only then)
            known.update(tip=live, forked_at=forked, gone_since=None)
        elif not known.get("gone_since"):
            known["gone_since"] = _iso(now)
        newest = max(items, key=lambda e: e.data.created_at).data.branch
        tip = live or known.get("tip") or (newest.commit if newest is not None else None)
        ids = tuple(e.id for e in items)
        if known.get("judged") == [g.head, g.on, tip, forked]:  # nothing moved since: the same answer
            why = known.get("reached")
        else:
            why = _reached(g, name, tip, forked)
            known.update(judged=[g.head, g.on, tip, forked], reached=why)
        if why is not None:
            here.update(ids)
            groups.append(Group(name, ids, MERGED, why))
        elif live is not None:
            groups.append(Group(name, ids, WAITING, f"not merged into {g.on or 'HEAD'}"))
        else:
            since = _parse(known.get("gone_since")) or now
            expires = since + dt.timedelta(days=days)
            state = EXPIRED if now >= expires else GONE
            why = f"deleted, not merged into {g.on or 'HEAD'}"
            groups.append(Group(name, ids, state, why, since, expires))
    if observe and json.dumps(seen, sort_keys=True) != before:
        atomic_write_text(_seen_path(ws), json.dumps(seen, indent=1, ensure_ascii=False) + "\n")
    return Routing(g.on, frozenset(here), tuple(groups))


def expire(ws: Workspace, routing: Routing) -> list[Group]:
    """Move the items of branches gone too long out of staging, into the state folder (a person
    can still read them there); recorded in the run history. Returns the groups that went."""
    gone = list(routing.expired)
    if not gone:
        return []
    folder = ws.clone_state_dir / EXPIRED_DIR
    for group in gone:
        for staging_id in group.ids:
            path = ws.staging_dir / f"{staging_id}.json"
            try:
                data = path.read_bytes()
            except FileNotFoundError:
                continue  # consumed meanwhile by another run
            atomic_write_bytes(folder / path.name, data)
            atomic_delete(path)
    state = SharedState.load(ws)  # pulled from shared staging: a later pull must not bring them back
    pulled = [i for g in gone for i in g.ids if i in state.pulled]
    if pulled:
        state.consumed += [i for i in pulled if i not in state.consumed]
        for staging_id in pulled:
            state.pulled.pop(staging_id, None)
        state.save(ws)
    history.record(ws, "staging-expired", {
        "run_id": f"expired-{history.now()}", "started_at": history.now(), "finished_at": history.now(),
        "result": "expired", "branches": [g.to_json() for g in gone]})
    return gone


def expired_line(group: Group, days: int) -> str:
    return (f"dropped {len(group.ids)} staging files of branch {group.branch}: {group.why} since "
            f"{group.gone_since:%Y-%m-%d}, more than memory.branch_staging_days ({days}); they are kept in "
            f"the state folder's {EXPIRED_DIR}/")


def describe(group: Group, days: int) -> str:
    """One line for `memcli status` and `gc-report`: the branch, its items, what becomes of them."""
    files = f"{len(group.ids)} staging file{'s' if len(group.ids) != 1 else ''}"
    if group.state == MERGED:
        return f"{group.branch}: {files}, taken here ({group.why})"
    if group.state == WAITING:
        return f"{group.branch}: {files} wait ({group.why})"
    assert group.gone_since is not None and group.expires is not None
    if group.state == EXPIRED:
        return (f"{group.branch}: {files} of a branch {group.why} since {group.gone_since:%Y-%m-%d}: "
                "they go at the next consolidation")
    return (f"{group.branch}: {files} of a branch {group.why} (since {group.gone_since:%Y-%m-%d}): they go "
            f"on {group.expires:%Y-%m-%d} (memory.branch_staging_days = {days}) unless it comes back")
