"""`memcli hooks install | uninstall | status`: wire memcli into each agent's own config files
(what each agent's are: its wiring, memcli/agents/<agent>/wiring.py; the agents: registry.py).

Every file is read and its new text computed before anything is written, so one unreadable file
stops the command with nothing changed. Each write is atomic and preceded by a backup of the old
bytes (a file that did not exist is backed up as such). Uninstall removes memcli's entries; when
the file is still exactly what install made of a backup, that backup is restored byte for byte.
"""

from __future__ import annotations

import datetime as dt
import difflib
import hashlib
import json
import os
import sys
from pathlib import Path

from memcli import onpath
from memcli.agents import edit, registry, wired
from memcli.agents.parts import Wiring
from memcli.agents.targets import SCOPES, ConfigFile
from memcli.atomicio import atomic_delete, atomic_write_text, leftovers, private_dir
from memcli.errors import EXIT_OK, ConfigError, UsageError
from memcli.extract.ready import capture_line
from memcli.plural import plural
from memcli.skills import after
from memcli.values import frozen
from memcli.workspace import Workspace, find_root

ABSENT = ".absent"  # suffix of a backup that stands for "the file did not exist"
KEEP_BACKUPS = 5  # per config file and action: the newest; older ones are removed


def backup_dir() -> Path:
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "memcli" / "backups"


@frozen
class Change:
    cf: ConfigFile
    old: str | None  # None: the file does not exist
    new: str | None  # None: delete the file


def _agents(agent: str) -> tuple[str, ...]:
    """The agents a selection names: `all`, one agent, or several joined by commas (`--agent`
    repeated), each once, in the registry's order."""
    options = registry.options()
    asked = {name.strip() for name in agent.split(",") if name.strip()}
    unknown = sorted(asked - {*options, "all"})
    if unknown:
        raise UsageError(f"--agent {unknown[0]!r}: choose one of {', '.join(options)} or all")
    return options if "all" in asked or not asked else tuple(o for o in options if o in asked)


def _wiring(option: str) -> Wiring:
    found = registry.by_option(option)
    wiring = found[0].load().wiring if found is not None else None
    assert wiring is not None, option  # _agents() checked the name; an agent with hooks has wiring
    return wiring


def _files(agent: str, scope: str, root: Path | None) -> list[ConfigFile]:
    if scope not in SCOPES:
        raise UsageError(f"--scope {scope!r}: choose project or user")
    return [cf for name in _agents(agent) for cf in _wiring(name).config_files(scope, root)]


def _read(path: Path) -> str | None:
    try:
        return path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise edit.UnreadableConfig(f"{path}: cannot read ({exc}); nothing was changed") from None


def _key(path: Path) -> str:
    return hashlib.sha256(str(path.absolute()).encode()).hexdigest()[:16]


def _backup(path: Path, old: str | None, action: str) -> Path:
    """The old bytes, as private as the file was (a 0600 settings file may hold a token), in a
    private folder; the newest KEEP_BACKUPS of this file and action are kept."""
    stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%S%f")
    folder = private_dir(backup_dir())
    target = folder / f"{_key(path)}-{stamp}-{action}-{path.name}"
    if old is None:
        target = target.with_name(target.name + ABSENT)
    try:
        mode = path.stat().st_mode & 0o777
    except OSError:
        mode = 0o600
    atomic_write_text(target, old or "", mode=mode)
    _prune(folder, path, action)
    return target


def _prune(folder: Path, path: Path, action: str) -> None:
    found = sorted(folder.glob(f"{_key(path)}-*-{action}-*"))  # the stamp sorts them by time
    for old in found[:-KEEP_BACKUPS]:
        atomic_delete(old)


def _before_install(cf: ConfigFile, current: str) -> str | None | bool:
    """The text the file had before the install that produced `current` exactly, or produced what
    the agent made of it when it loaded it (None: it did not exist), or False when no backup
    explains it (it was edited since)."""
    try:
        found = sorted(backup_dir().glob(f"{_key(cf.path)}-*-install-*"))
    except OSError:
        return False
    for path in reversed(found):
        old = None if path.name.endswith(ABSENT) else path.read_bytes().decode("utf-8")
        try:
            made = edit.install(cf, old or "")
        except edit.UnreadableConfig:
            continue
        if current in (made, cf.loaded(made) if cf.loaded is not None else made):
            return old
    return False


def plan(action: str, files: list[ConfigFile]) -> list[Change]:
    changes = []
    for cf in files:
        old = _read(cf.path)
        if action == "install":
            new: str | None = edit.install(cf, old or "")
        elif old is None:
            continue
        else:
            new = edit.uninstall(cf, old)
            if new != old:
                restored = _before_install(cf, old)
                if restored is not False:  # (less what an earlier memcli had put there, now retired)
                    new = restored if restored is None else edit.drop_retired(cf, restored)  # type: ignore[arg-type]
                elif not edit.data(cf, new):
                    new = None  # nothing but memcli's entries was ever in it
        if new != old:
            changes.append(Change(cf, old, new))
    return changes


def _diff(change: Change) -> str:
    name = str(change.cf.path)
    lines = difflib.unified_diff((change.old or "").splitlines(keepends=True),
                                 (change.new or "").splitlines(keepends=True),
                                 fromfile=name if change.old is not None else "/dev/null",
                                 tofile=name if change.new is not None else "/dev/null")
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def _sweep(files: list[ConfigFile], *, dry_run: bool) -> None:
    """The temp files that writes of these config files left beside them when memcli was killed
    before renaming them into place: removed (or, with dry_run, named), one line each. In a project
    they are untracked files `git add -A` would commit, and they keep an emptied `.codex/` from
    going at uninstall."""
    for path in dict.fromkeys(cf.path for cf in files):
        for name in leftovers(path.parent, {path.name}):
            if not dry_run:
                atomic_delete(path.parent / name)
            print(f"{'would remove' if dry_run else 'removed'} {path.parent / name}, left by an interrupted"
                  f" write of {path.name}")


def run_change(action: str, agent: str, scope: str, root: Path | None, *, dry_run: bool = False) -> int:
    files = _files(agent, scope, root)
    changes = plan(action, files)
    _sweep(files, dry_run=dry_run)
    if dry_run:
        sys.stdout.write("".join(_diff(c) for c in changes) or f"nothing to {action}\n")
        return EXIT_OK
    for change in changes:
        saved = _backup(change.cf.path, change.old, action)
        if change.new is None:
            atomic_delete(change.cf.path)
            _remove_empty(change.cf.path.parent, root if scope == "project" and root else Path.home(),
                          change.cf.folders)
        else:
            atomic_write_text(change.cf.path, change.new)
        verb = "created" if change.old is None else "removed" if change.new is None else "updated"
        print(f"{change.cf.agent}: {verb} {change.cf.path} (backup: {saved})")
    if not changes:
        print(f"{agent}: nothing to {action}; already {'in place' if action == 'install' else 'removed'}")
    elif action == "install":
        print("Restart the agent to load them; `memcli hooks status` shows what is wired.")
    if action == "install":
        project = root if root is not None else _project_root()
        for name in _agents(agent):
            for note in _wiring(name).install_notes(scope, root):
                print(f"{name}: {note}")
        for warning in twice_wired(agent, project):
            print(warning)
        if changes and (missing := onpath.warning("the agents' hooks and MCP servers")):
            print(missing)
        print(f"capture: {_capture_line(project)}")
    _skills(action, agent, root if root is not None else _project_root())
    return EXIT_OK


def _remove_empty(folder: Path, stop: Path, most: int | None) -> None:
    """`.codex/` and the like, when install made them: the file's folder if empty, then the empty
    ones above it inside `stop` (the workspace; user scope: the home folder): `.opencode/plugins/`;
    at most `most` of them (None: no limit)."""
    while most is None or most > 0:
        try:
            folder.rmdir()
        except OSError:
            return
        folder = folder.parent
        most = None if most is None else most - 1
        if folder == stop or stop not in folder.parents:
            return


def _skills(action: str, agent: str, project: Path | None) -> None:
    """Knowledge as the wired agents' skills (`[skills] auto`): written at install, removed with the
    last agent reading them at uninstall (memcli.skills.after)."""
    if action == "install":
        after.after_install(project)
    else:
        after.after_uninstall(project, list(_agents(agent)))


def _project_root() -> Path | None:
    try:
        return find_root(Path.cwd())
    except OSError:
        return None


def _capture_line(root: Path | None) -> str:
    """The model capture extracts with (a default agent says so), or what it waits for."""
    try:
        ws = Workspace.open(root) if root is not None else None
    except ConfigError:
        ws = None  # `memcli lint` and every command report a broken config; not install's to judge
    return capture_line(ws)


def _hooks_wired(agent: str, scope: str, root: Path | None) -> bool:
    found = registry.by_option(agent)
    return found is not None and wired.hooks_wired(found[0], scope, root)


def twice_wired(agent: str, root: Path | None) -> list[str]:
    """A warning per agent whose memcli hooks are in both its project and its user files: agents
    run the matching hooks of every file (Codex does, without merging), so each would run twice."""
    if root is None:
        return []
    both = [name for name in _agents(agent)
            if _hooks_wired(name, "project", root) and _hooks_wired(name, "user", None)]
    return [f"warning: {name} has memcli's hooks at both project and user scope, so each can run twice; "
            f"keep one (memcli hooks uninstall --agent {name} --scope user)" for name in both]


def collect(agent: str, scope: str, root: Path | None) -> list[dict[str, str]]:
    rows = []
    for cf in _files(agent, scope, root):
        try:
            states = [(e.label, s) for e, s in edit.status(cf, _read(cf.path) or "")]
        except edit.UnreadableConfig:
            states = [("(file)", "unreadable")]
        for label, state in states:
            rows.append({"agent": cf.agent, "scope": scope, "file": str(cf.path), "entry": label,
                         "state": state})
    return rows


def agent_state_rows(agent: str, scope: str, root: Path | None) -> list[dict[str, str]]:
    """Each agent's own view of memcli's entries (trusted, approved ...), where its files show it."""
    return [{"agent": name, "scope": scope, "state": line}
            for name in _agents(agent) for line in _wiring(name).states(scope, root)]


def status_lines(rows: list[dict]) -> list[str]:
    """The entries as text, one line per agent and scope where its entries agree: `installed` with
    how many and where, `not installed` when none is there, and a scope where no agent has any is
    one line; an agent whose entries differ gets a line per entry (`--json` always lists each)."""
    groups: dict[tuple[str, str], list[dict]] = {}
    for row in rows:
        groups.setdefault((row["scope"], row["agent"]), []).append(row)
    lines: list[str] = []
    for scope in dict.fromkeys(s for s, _ in groups):
        mine = {agent: group for (s, agent), group in groups.items() if s == scope}
        if len(mine) > 1 and all(row["state"] == "missing" for group in mine.values() for row in group):
            lines.append(f"{'(all)':<12} {scope:<8} {'missing':<10} nothing of memcli's at {scope} scope "
                         f"(memcli hooks install --scope {scope} wires it)")
            continue
        for agent, group in mine.items():
            states = {row["state"] for row in group}
            files = ", ".join(dict.fromkeys(row["file"] for row in group))
            if len(group) > 1 and states == {"missing"}:
                lines.append(f"{agent:<12} {scope:<8} {'missing':<10} {'not installed':<20} {files}")
            elif len(group) > 1 and states == {"installed"}:
                lines.append(f"{agent:<12} {scope:<8} {'installed':<10} "
                             f"{plural(len(group), 'entry', 'entries'):<20} {files}")
            else:
                lines += [f"{row['agent']:<12} {row['scope']:<8} {row['state']:<10} {row['entry']:<20} "
                          f"{row['file']}" for row in group]
    return lines


def run_status(agent: str, root: Path | None, *, scope: str | None = None, as_json: bool = False) -> int:
    """What is wired where; `scope` None: both (project only inside a workspace)."""
    if scope is not None and scope not in SCOPES:
        raise UsageError(f"--scope {scope!r}: choose project or user")
    scopes = [s for s in SCOPES if (scope is None or s == scope) and (s == "user" or root is not None)]
    rows = [row for s in scopes for row in collect(agent, s, root)]
    agent_rows = [row for s in scopes for row in agent_state_rows(agent, s, root)]
    warnings = twice_wired(agent, root)
    on_path = onpath.on_path()
    if as_json:
        print(json.dumps({"memcli_on_path": on_path, "entries": rows, "agent_states": agent_rows,
                          "warnings": warnings}, ensure_ascii=False, indent=2))
        return EXIT_OK
    lines = status_lines(rows)
    for row in agent_rows:
        lines.append(f"{row['agent']:<12} {row['scope']:<8} {row['state']}")
    lines.extend(warnings)
    lines.append(f"memcli on PATH: {on_path or 'no: agents cannot run the hooks; install memcli with pipx'}")
    print("\n".join(lines))
    return EXIT_OK
