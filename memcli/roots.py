"""Where a workspace is, and where its local state lives, read with nothing but `os`: the session
start answered from its memo (memcli.hooks.startmemo) needs both before it knows whether anything
else must be imported. memcli.config and memcli.workspace build on these.

A workspace is found like git finds its root: walk up from a directory to the first one that has
`memory/`, a memcli.toml, or a `[tool.memcli]` table in pyproject.toml.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from memcli.errors import ConfigError

CONFIG_FILE = "memcli.toml"
STATE_DIR_ENV = "MEMCLI_STATE_DIR"
STATE_DIR_NAME = ".memcli"


def read_toml(path: Path, data: bytes | None = None) -> dict[str, Any]:
    import tomllib  # here: a config validated before is read from the cache, its TOML not parsed

    try:
        return tomllib.loads((path.read_bytes() if data is None else data).decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror}") from None


def config_source(root: Path) -> tuple[Path, dict[str, Any]] | None:
    """The config file of a workspace and its memcli table, or None when there is none."""
    own = root / CONFIG_FILE
    if own.is_file():
        return own, read_toml(own)
    pyproject = root / "pyproject.toml"
    if pyproject.is_file():
        table = read_toml(pyproject).get("tool", {}).get("memcli")
        if isinstance(table, dict):
            return pyproject, table
    return None


def is_root(directory: Path) -> bool:
    """A workspace root has `memory/`, a memcli.toml, or a `[tool.memcli]` table in pyproject.toml."""
    if (directory / "memory").is_dir() or (directory / CONFIG_FILE).is_file():
        return True
    return (directory / "pyproject.toml").is_file() and config_source(directory) is not None


def find_root(start: Path) -> Path | None:
    start = start.resolve()
    for directory in (start, *start.parents):
        if is_root(directory):
            return directory
    return None


def root_for(workspace: Path | None, start: Path) -> Path | None:
    """The root `--workspace` names (when it is a folder), else the workspace's found above `start`;
    None where there is none."""
    if workspace is not None:
        return workspace.resolve() if workspace.is_dir() else None
    return find_root(start)


def state_dir_at(root: Path) -> Path:
    """Where the local state of the workspace at `root` lives (MEMCLI_STATE_DIR overrides), made
    or not: memcli.config.state_dir_of also makes it private."""
    override = os.environ.get(STATE_DIR_ENV)
    return Path(override) if override else root / STATE_DIR_NAME
