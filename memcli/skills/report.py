"""What `memcli skills sync` says: what it wrote and removed, where, what it left alone and why,
and what each agent lists of the skills (what it shortens or leaves out, and its cap)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from memcli.plural import plural as _count

if TYPE_CHECKING:
    from memcli.skills.sync import Result


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
    lines += listing_lines(result.listings)
    return "\n".join(lines) + "\n"


def listing_lines(listings: dict[str, dict]) -> list[str]:
    """What each agent lists: one line for all the agents that list every skill whole (none when
    there are no skills), then one line for each agent that shortens or leaves some out."""
    whole: dict[int, list[str]] = {}
    lines: list[str] = []
    for agent, seen in listings.items():
        line = _partial_line(agent, seen)
        if line is None:
            if seen["skills"]:
                whole.setdefault(seen["skills"], []).append(agent)
        else:
            lines.append(line)
    listed = [f"{', '.join(agents)} {'lists' if len(agents) == 1 else 'list'} all "
              f"{_count(n, 'skill')} with their descriptions" for n, agents in whole.items()]
    return listed + lines


def _partial_line(agent: str, seen: dict) -> str | None:
    partial: list[str] = []
    n = seen["skills"]
    if seen["shortened"]:
        partial.append(f"{len(seen['shortened'])} with a shortened description")
    if seen["bare"]:
        partial.append(f"{len(seen['bare'])} by name only ({_names(seen['bare'])})")
    if seen["omitted"]:
        partial.append(f"{len(seen['omitted'])} not at all ({_names(seen['omitted'])})")
    if not partial:
        return None
    return (f"{agent} lists {_count(n, 'skill')}: {'; '.join(partial)} — its cap: {seen['rule']}; "
            "memcli context keeps these in its index")
