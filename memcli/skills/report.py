"""What `memcli skills sync` says: what it wrote and removed, where, what it left alone and why,
and what each agent lists of the skills (what it shortens or leaves out, and its cap)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memcli.skills.sync import Result


def _count(n: int, what: str) -> str:
    return f"{n} {what}{'' if n == 1 else 's'}"


def _names(names: list[str], shown: int = 5) -> str:
    more = f" and {len(names) - shown} more" if len(names) > shown else ""
    return ", ".join(names[:shown]) + more


def headline(result: Result) -> str:
    total = sum(f["skills"] for f in result.folders)
    if result.unchanged or not (result.written or result.removed):
        return f"skills: nothing to change ({_count(total, 'skill')} up to date)"
    verb = ("would write", "would remove") if result.dry_run else ("wrote", "removed")
    done = f"{verb[0]} {len(result.written)}, {verb[1]} {len(result.removed)}"
    return f"skills: {done} ({_count(total, 'skill')})"


def render_text(result: Result, *, verbose: bool = True) -> str:
    lines = [headline(result)]
    for folder in result.folders:
        agents = ", ".join(folder["agents"])
        lines.append(f"  {folder['folder']}/ ({agents}): {_count(folder['skills'], 'skill')}")
    if result.dry_run:
        lines += [f"  would write {rel}/" for rel in result.written]
        lines += [f"  would remove {rel}/" for rel in result.removed]
    elif verbose:
        lines += [f"  wrote {rel}/" for rel in result.written]
        lines += [f"  removed {rel}/" for rel in result.removed]
    for kept in result.kept:
        lines.append(f"kept {kept['skill']}/: a skill memcli did not write has this name, so "
                     f"{kept['record']} is not written there (rename one of them)")
    for rel in result.left:
        lines.append(f"left {rel}/: it holds files memcli did not write")
    for changed in result.edited:
        lines.append(f"edited by hand: {changed['skill']}/ ({', '.join(changed['files'])}) is not what "
                     "memcli wrote, so it is left as it is; edit the record instead and delete the "
                     "folder, or remove its .memcli-skill to keep it as your own")
    for unfit in result.unfit:
        lines.append(f"not a skill: {unfit['path']}: {unfit['why']}")
    groups: dict[tuple[str, str], list[str]] = {}
    for missed in result.missed:  # one line per agent and reason: all workflows can share one
        groups.setdefault((missed["agent"], missed["why"]), []).append(missed["path"])
    for (agent, why), paths in groups.items():
        lines.append(f"not for {agent}: {why}: {_count(len(paths), 'record')} ({_names(paths)})")
    for agent, seen in result.listings.items():
        lines.append(listing_line(agent, seen))
    return "\n".join(lines) + "\n"


def listing_line(agent: str, seen: dict) -> str:
    n, partial = seen["skills"], []
    if seen["shortened"]:
        partial.append(f"{len(seen['shortened'])} with a shortened description")
    if seen["bare"]:
        partial.append(f"{len(seen['bare'])} by name only ({_names(seen['bare'])})")
    if seen["omitted"]:
        partial.append(f"{len(seen['omitted'])} not at all ({_names(seen['omitted'])})")
    if not partial:
        return f"{agent} lists all {_count(n, 'skill')} with their descriptions"
    return (f"{agent} lists {_count(n, 'skill')}: {'; '.join(partial)} — its cap: {seen['rule']}; "
            "memcli context keeps these in its index")
