"""`memcli skills sync`: every knowledge record and workflow as a skill in the agents' folders.

The whole change is computed before anything is written: what each folder should hold, against
what it holds. A folder memcli wrote (its marker) is brought up to date or removed with its
record; a folder without the marker is a person's and is never touched, only reported. Each file
is written atomically, the marker first (an interrupted sync leaves a folder the next one finishes:
one with the marker, or one holding nothing but the marker's unfinished temp file, which no person
wrote); a removal takes the marker last, and the temp files a killed sync left are swept. When
the records, the agents, the settings and what else each agent lists (its dialect's `inputs`: its
cap's setting, the other skills in its folders) are what the last sync saw and every file it wrote
is untouched (their stats, state.py), nothing is read again.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memcli import __version__
from memcli.atomicio import leftover_of, leftovers
from memcli.recordtext import read_file
from memcli.skills import place, render, state
from memcli.skills.sources import Source, digest, file_digest, read_sources, record_files

if TYPE_CHECKING:
    from collections.abc import Callable

    from memcli.skills.place import Target
    from memcli.workspace import Workspace

FORMAT = 1  # of what sync writes: a change here rewrites every skill


@dataclass
class Result:
    folders: list[dict[str, Any]] = field(default_factory=list)  # folder, agents, skills
    written: list[str] = field(default_factory=list)  # skill folders created or brought up to date
    removed: list[str] = field(default_factory=list)
    kept: list[dict[str, str]] = field(default_factory=list)  # a person's skill with a record's name
    edited: list[dict[str, Any]] = field(default_factory=list)  # memcli's skill edited by hand: left
    unfit: list[dict[str, str]] = field(default_factory=list)  # records that cannot become skills
    missed: list[dict[str, str]] = field(default_factory=list)  # records an agent cannot take as they are
    listings: dict[str, dict[str, Any]] = field(default_factory=dict)  # agent → what it lists
    left: list[str] = field(default_factory=list)  # removed skill folders still holding others' files
    dry_run: bool = False
    unchanged: bool = False  # the fast path: nothing was read again

    def to_json_dict(self) -> dict[str, Any]:
        from dataclasses import asdict  # here: an unchanged sync prints text, never JSON, unless asked

        return {"schema": "memcli.skills.sync", "version": 1, **asdict(self)}


@dataclass
class _Plan:
    final: dict[str, dict[str, bytes]] = field(default_factory=dict)  # skill folder → all its files
    writes: dict[str, dict[str, bytes]] = field(default_factory=dict)  # skill folder → files to write
    drops: dict[str, list[str]] = field(default_factory=dict)  # skill folder → files to remove
    sweeps: dict[str, list[str]] = field(default_factory=dict)  # skill folder → a killed sync's temp files


def _key(root: Path, files: list[tuple[str, bytes]], targets: list[Target], scope: list[Target],
         commit: bool) -> str:
    parts = [__version__, str(FORMAT), digest(files), ",".join(t.option for t in targets),
             ",".join(t.option for t in scope), str(commit)]
    parts += [t.dialect.inputs(root) for t in targets]  # what else each agent lists, its settings
    return file_digest("\0".join(parts).encode())


def sync(ws: Workspace, targets: list[Target], scope: list[Target] | None = None, *,
         dry_run: bool = False) -> Result:
    """Bring the skill folders of `scope` (default: the targets') to what the records make of
    them for `targets`; generated skills no target takes any more are removed."""
    scope = targets if scope is None else scope
    root, commit = ws.root, ws.config.skills.commit
    files = record_files(root)
    key = _key(root, files, targets, scope, commit)
    kept = state.load(ws.state_dir)
    if not dry_run and kept.get("key") == key and state.unchanged(root, kept):
        result = Result(**kept["report"])
        result.written, result.removed, result.unchanged = [], [], True
        return result
    sources, unfit = read_sources(files, root)
    result = Result(unfit=[{"path": u.path, "why": u.why} for u in unfit], dry_run=dry_run)
    desired = _desired(sources, targets, commit, result)
    plan = _plan(root, desired, sorted({f for t in scope for f in t.folders}), result)
    for folder, skills in sorted(desired.items()):
        agents = [t.option for t in place.readers(folder, targets)]
        result.folders.append({"folder": folder, "agents": agents, "skills": len(skills)})
    result.listings = _listings(root, sources, desired, targets, plan)
    if dry_run:
        return result
    _apply(root, plan, result)
    stats = {f"{rel}/{name}": state.stat_of(root / rel / name) for rel, files_ in plan.final.items()
             for name in files_}
    report = result.to_json_dict()
    for transient in ("schema", "version", "written", "removed", "dry_run", "unchanged"):
        report.pop(transient)
    full = {agent: listed for agent, listed in kept.get("full", {}).items()
            if agent not in {t.option for t in scope}}  # what other agents list stays known
    full.update(_full(sources, files, result.listings, desired, targets))
    if result.written or result.removed:  # the agents' folders (part of the key) have changed
        key = _key(root, files, targets, scope, commit)
    state.save(ws.state_dir, {"key": key, "stats": stats, "report": report, "full": full})
    return result


def _desired(sources: list[Source], targets: list[Target], commit: bool,
             result: Result) -> dict[str, dict[str, dict[str, bytes]]]:
    """Folder → slug → the files of that skill."""
    homes = place.home_folders(targets)
    out: dict[str, dict[str, dict[str, bytes]]] = {}
    for source in sources:
        placed, missed = place.placements(source, targets, homes)
        for folder, readers in placed.items():
            out.setdefault(folder, {})[source.slug] = render.skill_files(source, readers, commit)
        for target in missed:
            result.missed.append({"path": source.path, "agent": target.option,
                                  "why": f"{target.title} cannot keep a skill to explicit use "
                                         "(model_invocation: false; a workflow's auto_invoke: false)"})
    return out


def _read(path: Path) -> bytes | None:
    return read_file(path)[0]  # bounded; a FIFO planted in a skill folder is refused, not waited on


def _reader(folder: Path) -> Callable[[str], bytes | None]:
    """`_read` of a file in `folder` by its name (what render.edited asks for)."""
    return lambda name: _read(folder / name)


def _plan(root: Path, desired: dict[str, dict[str, dict[str, bytes]]], folders: list[str],
          result: Result) -> _Plan:
    plan = _Plan()
    for folder in folders:
        want = dict(desired.get(folder, {}))
        try:
            present = sorted(os.listdir(root / folder))
        except OSError:
            present = []
        for name in present:
            rel = f"{folder}/{name}"
            mark = _read(root / rel / render.MARKER)
            owned = render.read_marker(mark) if mark is not None else None
            files = want.pop(name, None)
            if owned is None and (left := _unfinished(root / rel)) is not None:
                if left:
                    plan.sweeps[rel] = left
                if files is not None:  # made again below, as a new one
                    want[name] = files
                elif left:  # no record: the folder it began goes (an empty one is left as it is)
                    plan.drops[rel] = []
                continue
            if owned is None:  # a person's skill (or a stray file): never touched
                if files is not None:
                    result.kept.append({"skill": rel, "record": _source_of(files)})
                    desired[folder].pop(name)
                continue
            changed_by_hand = render.edited(mark or b"", _reader(root / rel))
            if changed_by_hand:  # noticed, not overwritten: the person decides (docs/skills.md)
                result.edited.append({"skill": rel, "files": changed_by_hand})
                if files is not None:
                    desired[folder].pop(name)
                continue
            if left := _leftovers(root / rel, owned):
                plan.sweeps[rel] = left
            if files is None:  # its record is gone, or no agent here takes it any more
                plan.drops[rel] = owned
                result.removed.append(rel)
                continue
            plan.final[rel] = files
            changed = {n: data for n, data in files.items() if _read(root / rel / n) != data}
            stale = [f for f in owned if f not in files]
            if changed:
                plan.writes[rel] = changed
            if stale:
                plan.drops[rel] = stale
            if changed or stale:
                result.written.append(rel)
        for name, files in want.items():
            rel = f"{folder}/{name}"
            plan.final[rel] = plan.writes[rel] = files
            result.written.append(rel)
    result.written.sort()
    return plan


def _unfinished(folder: Path) -> list[str] | None:
    """What a folder without a marker holds when it is a sync's that was killed before its marker was
    in place (nothing, or the marker's temp file): those names, else None (a person's, or a file)."""
    try:
        names = os.listdir(folder)
    except OSError:
        return None
    return names if all(leftover_of(n, render.MARKER) for n in names) else None


def _leftovers(folder: Path, owned: list[str]) -> list[str]:
    """The temp files a killed write of one of memcli's own files in this folder left (paths
    relative to it, as `owned` names its files)."""
    by_dir: dict[str, set[str]] = {}
    for name in owned:
        sub, _, base = name.rpartition("/")
        by_dir.setdefault(sub, set()).add(base)
    return sorted(f"{sub}/{n}" if sub else n
                  for sub, bases in by_dir.items() for n in leftovers(folder / sub, bases))


def _source_of(files: dict[str, bytes]) -> str:
    import json  # here: only a sync that changes something reads a marker

    return str(json.loads(files[render.MARKER])["source"])


def _apply(root: Path, plan: _Plan, result: Result) -> None:
    from memcli.atomicio import atomic_delete, atomic_write_bytes  # here: an unchanged sync writes nothing

    for rel, files in sorted(plan.writes.items()):
        if render.MARKER in files:  # the claim first: an interrupted write is finished next time
            atomic_write_bytes(root / rel / render.MARKER, files[render.MARKER])
        for name, data in sorted(files.items()):
            if name != render.MARKER:
                atomic_write_bytes(root / rel / name, data)
    for rel, names in sorted(plan.sweeps.items()):
        for name in names:
            atomic_delete(root / rel / name)
    for rel, names in sorted(plan.drops.items()):
        for name in sorted(names, key=lambda n: n == render.MARKER):  # the marker last
            atomic_delete(root / rel / name)
        for name in sorted({n.rpartition("/")[0] for n in names if "/" in n}, reverse=True):
            with contextlib.suppress(OSError):
                (root / rel / name).rmdir()
        if rel not in plan.final:
            try:
                (root / rel).rmdir()
            except FileNotFoundError:
                pass
            except OSError:
                result.left.append(rel)  # files memcli did not write: the person's, kept
    for folder in sorted({rel.rpartition("/")[0] for rel in plan.drops}):  # `.agents/skills`, `.agents`
        for empty in (root / folder, (root / folder).parent):
            if empty != root:
                with contextlib.suppress(OSError):
                    empty.rmdir()  # only when empty: nothing of anyone's is lost


def _read_by(target: Target, desired: dict[str, dict[str, dict[str, bytes]]]) -> dict[str, str]:
    """Slug → the folder the agent reads that skill from: the first of its folders that holds it
    (an agent that reads two folders memcli wrote it in, as Copilot does, takes one, by that order)."""
    out: dict[str, str] = {}
    for folder in target.folders:
        for slug in desired.get(folder, {}):
            out.setdefault(slug, folder)
    return out


def _listings(root: Path, sources: list[Source], desired: dict[str, dict[str, dict[str, bytes]]],
              targets: list[Target], plan: _Plan) -> dict[str, dict[str, Any]]:
    """Per agent: how many of its skills it lists, and which shortened, by name only, or not at all."""
    from memcli.agents.parts import Listed  # here: an unchanged sync answers from the last report

    by_slug = {s.slug: s for s in sources}
    out: dict[str, dict[str, Any]] = {}
    for target in targets:
        listed = [Listed(slug, by_slug[slug].description, root / folder / slug / render.SKILL,
                         files=tuple(plan.final[f"{folder}/{slug}"]))
                  for slug, folder in _read_by(target, desired).items()
                  if by_slug[slug].model and f"{folder}/{slug}" in plan.final]
        seen = target.dialect.listing(listed, root)
        out[target.option] = {"skills": len(listed), "shortened": list(seen.shortened),
                              "bare": list(seen.bare), "omitted": list(seen.omitted), "rule": seen.rule}
    return out


def _full(sources: list[Source], files: list[tuple[str, bytes]], listings: dict[str, dict[str, Any]],
          desired: dict[str, dict[str, dict[str, bytes]]], targets: list[Target]) -> dict[str, Any]:
    """Per agent: slug → (record path, record digest, SKILL.md path) of each knowledge record it
    lists with its whole description (what resident.py leaves out of `memcli context`)."""
    digests = {path: file_digest(data) for path, data in files}
    by_slug = {s.slug: s for s in sources}
    out: dict[str, Any] = {}
    for target in targets:
        seen = listings.get(target.option, {})
        partial = set(seen.get("shortened", [])) | set(seen.get("bare", [])) | set(seen.get("omitted", []))
        out[target.option] = {
            slug: [by_slug[slug].path, digests[by_slug[slug].path], f"{folder}/{slug}/{render.SKILL}"]
            for slug, folder in _read_by(target, desired).items()
            if slug not in partial and by_slug[slug].model and by_slug[slug].kind != "workflow"}
    return out
