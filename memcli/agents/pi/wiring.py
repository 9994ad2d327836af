"""Pi's wiring: memcli's extension, a file `hooks install` writes whole, and whether Pi's own
`pi config` turned it off, read from Pi's settings, never changed (checked against Pi 0.73.1:
`docs/extensions.md`, `docs/settings.md`, and `dist/core/package-manager.js` of its npm package).

Pi runs no hooks and has no MCP: its users extend it with TypeScript extensions, which it loads
from `.pi/extensions/*.ts` in the folder it starts in and from `<agent dir>/extensions/*.ts`,
without asking (they run with the user's permissions, as its docs warn). memcli's extension
(memcli.ts beside this module) adds the memory context to the system prompt at each prompt, serves
memcli's tools through `memcli mcp`, and runs `memcli extract --hook` when the session ends.

What only the user does: `pi config` can turn an extension off, which Pi records as
`"-extensions/memcli.ts"` in the `extensions` list of that scope's `settings.json` (`.pi/` or the
agent dir); `!pattern` entries there exclude what they match too. `states` reads both.
"""

from __future__ import annotations

import fnmatch
import json
from importlib.resources import files
from pathlib import Path

from memcli.agents.parts import Wiring
from memcli.agents.pi.discovery import agent_dir
from memcli.agents.targets import ConfigFile, generated

OPTION = "pi"  # its `--agent` (the declaration in __init__ says the same; tests hold them equal)
FILE = "memcli.ts"
MARKER = "// memcli for pi: "  # the first line of every extension memcli writes
OFF = "memcli's extension turned off in pi config ({}): turn it back on there for the memory and tools"
ON = "memcli's extension on in pi (loaded from {})"


def extension() -> str:
    return files(__package__).joinpath(FILE).read_text(encoding="utf-8")


def base(scope: str, root: Path | None) -> Path:
    """The folder Pi reads this scope's extensions and settings from."""
    return root / ".pi" if scope == "project" and root is not None else agent_dir()


def config_files(scope: str, root: Path | None) -> list[ConfigFile]:
    entry = generated("memcli extension", extension(), MARKER)
    # project: `.pi/` and `.pi/extensions/` may be install's own; user: `extensions/` in Pi's agent dir
    folders = 2 if scope == "project" and root is not None else 1
    return [ConfigFile(OPTION, base(scope, root) / "extensions" / FILE, "file", (entry,), folders=folders)]


def install_notes(scope: str, root: Path | None) -> list[str]:
    notes = [line for line in states(scope, root) if line.startswith("memcli's extension turned off")]
    if scope == "project" and root is not None:
        notes.append(f"start pi in {root}: it loads a project's .pi/extensions only from the folder it "
                     "starts in (run /reload in a pi already running there)")
    return notes


def states(scope: str, root: Path | None) -> list[str]:
    folder = base(scope, root)
    path = folder / "extensions" / FILE
    if not path.is_file():
        return []
    settings = folder / "settings.json"
    return [OFF.format(settings) if turned_off(path, folder, _patterns(settings)) else ON.format(path)]


def turned_off(path: Path, folder: Path, patterns: list[str]) -> bool:
    """Pi's overrides for an auto-discovered extension, as `isEnabledByOverrides` applies them:
    `!glob` excludes what it matches, then `+path` includes and `-path` excludes exactly."""
    rel = path.relative_to(folder).as_posix()
    names = {rel, path.name, path.as_posix()}
    exact = {rel, path.as_posix()}
    off = any(any(fnmatch.fnmatchcase(n, p[1:]) for n in names) for p in patterns if p.startswith("!"))
    if any(p[1:].removeprefix("./") in exact for p in patterns if p.startswith("+")):
        off = False
    if any(p[1:].removeprefix("./") in exact for p in patterns if p.startswith("-")):
        off = True
    return off


def _patterns(settings: Path) -> list[str]:
    try:
        listed = json.loads(settings.read_text(encoding="utf-8")).get("extensions")
    except (OSError, ValueError, AttributeError, RecursionError):
        return []
    return [p for p in listed if isinstance(p, str)] if isinstance(listed, list) else []


WIRING = Wiring(config_files, install_notes, states)
