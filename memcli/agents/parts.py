"""What an agent's `load()` returns (base.py): the parts that read, find and wire it, each declared
by one of its modules, and the helpers those modules share. Never imported by the hooks' start-up
paths: declaring an agent (base.py) needs none of this.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    import datetime as dt

    from memcli.agents.targets import ConfigFile
    from memcli.config import SessionsConfig
    from memcli.transcript.model import Entry, SessionInfo


class Claim(NamedTuple):
    """A reader's "this file is mine", with what its `describe` needs (records, a document, None)."""

    head: Any


def whole_file(info: SessionInfo, lines_read: int) -> tuple[int, int]:
    """The file lines a session spans, when a file holds one session."""
    return 0, lines_read - 1


class Reader(NamedTuple):
    """How an agent's session files are read. A file is offered to every reader in registry order,
    first whole (`claim_file`, on its first 64 KiB), then record by record (`claim_record`, on its
    first JSONL records): the first claim wins, so each reader claims by markers only its files carry."""

    describe: Callable[[Path, Any], list[SessionInfo]]  # the sessions of a claimed file, header fields
    entries: Callable[..., Iterator[Entry]]  # (info, stats) -> entries; (info, stats, cursor) if resumable
    resumable: bool = False  # entries() marks resume points on a Cursor (append-only JSONL)
    claim_file: Callable[[Path, bytes], Claim | None] | None = None
    claim_record: Callable[[dict[str, Any]], bool] | None = None  # its describe() gets the first records
    lines: Callable[[SessionInfo, int], tuple[int, int]] = whole_file  # (info, lines read) -> first, last


def home(env: str, default: str) -> Path:
    """An agent's home folder: its environment variable if set, else `~/<default>`."""
    value = os.environ.get(env)
    return Path(value).expanduser() if value else Path.home() / default


def configured(value: str | None, root: Path) -> Path | None:
    """A folder set in memcli.toml (`[sessions] claude_home = ...`): relative to the workspace."""
    if not value:
        return None
    path = Path(value).expanduser()
    return path if path.is_absolute() else root / path


def inside(cwd: str, roots: set[Path]) -> bool:
    """Did a session that ran in `cwd` run in one of `roots` (the workspace) or a folder inside it?"""
    path = Path(cwd)
    return any(path == r or r in path.parents for r in roots)


class Discovery(NamedTuple):
    """Where an agent's sessions are."""

    is_transcript: Callable[[Path], bool]  # a file in a folder given explicitly: one of its transcripts?
    # (workspace root, [sessions] config, since) -> its session files for the workspace; None: it keeps
    # no sessions where memcli could look (they are given as paths)
    files: Callable[[Path, SessionsConfig, dt.datetime | None], Iterable[Path]] | None = None
    # (session, workspace root) -> is it the workspace's? For a file holding the sessions of every
    # folder (OpenCode's database): discovery keeps only the workspace's; None: all of a file's are
    owns: Callable[[SessionInfo, Path], bool] | None = None


def _nothing(scope: str, root: Path | None) -> list[str]:
    return []


class Wiring(NamedTuple):
    """What `memcli hooks install | uninstall | status` does for an agent with hooks."""

    config_files: Callable[[str, Path | None], list[ConfigFile]]  # (scope, workspace root or None)
    install_notes: Callable[[str, Path | None], list[str]] = _nothing  # steps only the user can take
    states: Callable[[str, Path | None], list[str]] = _nothing  # its own view: trusted, approved ...


class Parts(NamedTuple):
    reader: Reader
    discovery: Discovery
    wiring: Wiring | None = None  # present exactly when the agent has hooks
