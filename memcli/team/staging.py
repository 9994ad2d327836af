"""`memcli staging push` / `pull`, and `release`: the consolidation side of shared staging.

Each machine publishes its staging files to `refs/memcli/staging/<name>` on a remote (one ref per
publisher, so publishers never write the same ref). A pull gathers every published item into
`memory/_staging/`. A consolidation that used pulled items removes exactly those from their refs.
Every ref update is a push with a lease on the oid last read, retried on a fresh read when someone
moved the ref meanwhile: a publisher and a consumer at the same moment both end up applied, and of
two consumers of the same items only the first succeeds — the second learns that its items are gone
and exits 4, so its run is dropped instead of using them twice.
"""

from __future__ import annotations

import getpass
import re
import socket
import sys
from pathlib import Path

from pydantic import ValidationError

from memcli import git
from memcli.atomicio import atomic_delete, atomic_write_bytes
from memcli.errors import EXIT_FINDINGS, EXIT_LOCKED, EXIT_OK, MemcliError, UsageError
from memcli.secrets import find_secrets
from memcli.staging import StagingFile, staging_files, staging_path
from memcli.team import refs
from memcli.team.state import SharedState
from memcli.workspace import Workspace

ATTEMPTS = 8


class StagingRace(MemcliError):
    """Another consolidation already used some of the published items this run used."""

    exit_code = EXIT_LOCKED


def publisher_name(explicit: str | None = None) -> str:
    """The ref of this machine: `--name`, else `<user>-<host>`, reduced to characters a ref allows."""
    if explicit is None:
        try:
            user = getpass.getuser()
        except (KeyError, OSError):  # a container user with no passwd entry
            user = "user"
    raw = explicit or f"{user}-{socket.gethostname().split('.')[0]}"
    name = re.sub(r"[^A-Za-z0-9._-]+", "-", raw).strip(".-")
    if not name or ".." in name or name.endswith(".lock"):
        raise UsageError(f"{raw!r} cannot name a staging ref; pass --name with letters, digits, '-', '_'")
    return name


def _repo_root(ws: Workspace) -> Path:
    top = git.top(ws.root)
    if top is None:
        raise UsageError(f"{ws.root} is not inside a git repository: shared staging travels through git")
    return top


def _local_files(ws: Workspace) -> list[Path]:
    return staging_files(ws)


def _checked(ws: Workspace, files: list[Path]) -> tuple[list[Path], list[str]]:
    """The files fit to leave this machine, and why the others are held back."""


    ok, held = [], []
    for path in files:
        data = path.read_bytes()
        try:
            parsed = StagingFile.model_validate_json(data)
        except ValidationError:
            held.append(f"{path.name}: not a valid staging file")
            continue
        if parsed.id != path.stem:
            held.append(f"{path.name}: its id does not match the file name")
            continue
        hit = next(find_secrets(data.decode("utf-8")), None)
        if hit is not None:
            held.append(f"{path.name}: contains something that looks like a secret ({hit.kind}); "
                        "remove it or the file")
            continue
        ok.append(path)
    return ok, held


def run_push(ws: Workspace, remote: str, name: str | None = None) -> int:
    """Publish this machine's staging files; published files leave local staging (the team's
    consolidation uses them now) and are kept under the state folder."""
    root = _repo_root(ws)
    me = publisher_name(name)
    state = SharedState.load(ws)
    # pulled items are someone's published items already: publishing them again would let two
    # consolidations use them
    files, held = _checked(ws, [p for p in _local_files(ws) if p.stem not in state.pulled])
    for line in held:
        print(f"staging push: held back {line}", file=sys.stderr)
    already = [p for p in files if p.stem in state.published]  # published before a crash, or consumed
    fresh = [p for p in files if p.stem not in state.published]
    if fresh:
        blobs = dict(zip((p.stem for p in fresh), refs.write_blobs(root, fresh), strict=True))
        key = SharedState.key(remote, me)
        expect = state.seen.get(key)
        for _ in range(ATTEMPTS):
            current = refs.entries(root, expect)
            new = refs.build(root, {**current, **blobs}, f"memcli staging of {me}")
            if refs.push(root, remote, me, new, expect):
                state.seen[key] = new
                break
            expect = refs.fetch(root, remote).get(me)
        else:
            raise refs.GitFailed(f"{remote} kept changing {refs.PREFIX}{me}; try again")
        state.published += [p.stem for p in fresh]
        state.save(ws)
    for path in already + fresh:
        atomic_write_bytes(ws.state_dir / "published" / path.name, path.read_bytes())
        atomic_delete(path)
    print(f"staging push: published {len(fresh)} staging files to {remote} {refs.PREFIX}{me}"
          + (f" ({len(held)} held back)" if held else ""))
    return EXIT_FINDINGS if held else EXIT_OK


def run_pull(ws: Workspace, remote: str) -> int:
    """Gather every published item into memory/_staging/ (by id: one file per item, never twice),
    up to extract.max_staging files there; the rest stays published for a later pull."""
    root = _repo_root(ws)
    state = SharedState.load(ws)
    published = refs.fetch(root, remote)
    done = set(state.consumed)
    added = present = left = 0
    room = ws.config.extract.max_staging - len(staging_files(ws))  # the bound extract keeps too
    bad: list[str] = []
    for name, oid in sorted(published.items()):
        state.seen[SharedState.key(remote, name)] = oid
        items = {sid: blob for sid, blob in refs.entries(root, oid).items() if sid not in done}
        fresh = {sid: blob for sid, blob in items.items() if not staging_path(ws.staging_dir, sid).exists()}
        for sid in items.keys() - fresh.keys():
            state.pulled[sid] = [remote, name]
            present += 1
        taken = dict(list(fresh.items())[: max(0, room - added)])  # the rest stays on the remote
        left += len(fresh) - len(taken)
        for sid, data in zip(taken, refs.read_blobs(root, list(taken.values())), strict=True):
            state.pulled[sid] = [remote, name]
            try:
                if StagingFile.model_validate_json(data).id != sid:
                    raise ValueError
            except (ValidationError, ValueError):
                bad.append(f"{name}/{sid}.json")
                continue
            atomic_write_bytes(staging_path(ws.staging_dir, sid), data)
            added += 1
    state.save(ws)
    for item in bad:
        print(f"staging pull: skipped {item}: not a valid staging file", file=sys.stderr)
    print(f"staging pull: {added} new staging files from {len(published)} publishers on {remote}"
          + (f" ({present} already here)" if present else ""))
    if left:
        print(f"staging pull: {left} more left on {remote}: memory/_staging holds "
              f"{ws.config.extract.max_staging} files (extract.max_staging); run `memcli consolidate`, "
              "then `memcli staging pull` again", file=sys.stderr)
    return EXIT_FINDINGS if bad else EXIT_OK


def release(ws: Workspace, consumed: list[str], *, push: bool = True) -> None:
    """Remove the pulled items a consolidation used from their refs (with `push` False, only note
    them for `staging clear`). No git at all when it used none."""
    state = SharedState.load(ws)
    mine = [sid for sid in consumed if sid in state.pulled]
    if not mine and not (push and state.pending):
        return
    state.consumed += [s for s in mine if s not in state.consumed]
    state.pending += [s for s in mine if s not in state.pending]
    state.save(ws)  # before any push: a crash now is retried later, never forgotten
    if push:
        _retry_pending(ws, _repo_root(ws), state)


def run_clear(ws: Workspace) -> int:
    """`memcli staging clear`: the removals a `consolidate --keep-published` left pending."""
    state = SharedState.load(ws)
    count = len(state.pending)
    if count:
        _retry_pending(ws, _repo_root(ws), state)
    print(f"staging clear: removed {count} used staging items from their refs" if count
          else "staging clear: nothing to remove")
    return EXIT_OK


def _retry_pending(ws: Workspace, root: Path, state: SharedState) -> None:
    groups: dict[tuple[str, str], set[str]] = {}
    for sid in state.pending:
        remote, name = state.pulled.get(sid, ["", ""])
        groups.setdefault((remote, name), set()).add(sid)
    lost: list[str] = []
    for (remote, name), ids in groups.items():
        if remote:
            try:
                lost += _remove(root, state, remote, name, ids)
            except refs.GitFailed as exc:
                raise refs.GitFailed(f"{exc}; the {len(state.pending)} used staging items stay pending: "
                                     "`memcli staging clear` removes them from their refs later") from None
        state.pending = [s for s in state.pending if s not in ids]
        for sid in ids:
            state.pulled.pop(sid, None)
        state.save(ws)
    if lost:
        raise StagingRace(
            f"another consolidation already used {len(lost)} of the published staging items this run "
            f"used ({', '.join(sorted(lost)[:3])}{', ...' if len(lost) > 3 else ''}): this run's commit "
            "repeats them; drop it (e.g. `git reset --hard HEAD~1`) and `memcli staging pull` again"
        )


def _remove(root: Path, state: SharedState, remote: str, name: str, ids: set[str]) -> list[str]:
    """Take `ids` out of publisher `name`'s set; returns those already gone (used by someone else)."""
    key = SharedState.key(remote, name)
    expect, fresh = state.seen.get(key), False
    for _ in range(ATTEMPTS):
        current = refs.entries(root, expect)
        if not fresh and not ids <= current.keys():
            expect, fresh = refs.fetch(root, remote).get(name), True  # an old view: look again first
            continue
        gone = sorted(ids - current.keys())
        keep = {sid: blob for sid, blob in current.items() if sid not in ids}
        if len(keep) == len(current):
            return gone  # nothing of ours left there
        new = refs.build(root, keep, f"memcli staging of {name}") if keep else None
        if refs.push(root, remote, name, new, expect):
            if new:
                state.seen[key] = new
            else:
                state.seen.pop(key, None)
            return gone
        expect, fresh = refs.fetch(root, remote).get(name), True
    raise refs.GitFailed(f"{remote} kept changing {refs.PREFIX}{name}; the consumed items stay pending "
                         "and are removed by `memcli staging clear`")
