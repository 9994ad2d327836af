"""The metrics state: what has been counted, per session file, kept in the local state folder.

One JSON file (`<state_dir>/metrics.json`), versioned, written atomically. It is a cache of facts
read from transcripts, so an unreadable or older-version file is dropped and everything is
recounted — never a user error. Sessions whose transcript has since disappeared (Claude Code prunes
old transcripts) keep their counts: usage history outlives the files it was read from.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from memcli.atomicio import atomic_write_text
from memcli.errors import MemcliError

STATE_VERSION: Final = 1
STATE_FILE = "metrics.json"

# One invoke: target (path or slug), how, entry index, RFC 3339 time or None.
InvokeRow = tuple[str, str, int, str | None]


class SessionState(BaseModel):
    model_config = ConfigDict(extra="forbid")

    session_id: str
    agent: str
    size: int = 0  # bytes counted so far
    mtime_ns: int = 0
    head: str = ""  # sha1 of the first `head_len` bytes: a rewritten file gets a different head
    head_len: int = 0
    next_index: int = 0  # entries below this index are counted
    # Where the reader resumes next time (memcli.sessions.Position.to_json()); None: read it whole.
    resume: dict[str, Any] | None = None
    entries: int = 0
    last_time: str | None = None
    # Tokens per UTC day ("2026-05-11"): what the agent logged, and an estimate from the text.
    # `logged_total` is the file's logged usage so far (Codex logs a cumulative count, not per entry):
    # what a later read adds above it is spread over the days of the new entries.
    logged_total: int = 0
    logged: dict[str, int] = Field(default_factory=dict)
    estimated: dict[str, int] = Field(default_factory=dict)
    invokes: list[InvokeRow] = Field(default_factory=list)

    def day_tokens(self) -> dict[str, int]:
        """Logged usage when the agent logs any (it already covers the text), else the estimate."""
        return self.logged if any(self.logged.values()) else self.estimated


class State(BaseModel):
    model_config = ConfigDict(extra="forbid")

    version: Literal[1] = STATE_VERSION
    sessions: dict[str, SessionState] = Field(default_factory=dict)  # key: "<transcript path>#<session id>"


def state_path(state_dir: Path) -> Path:
    return state_dir / STATE_FILE


def load_state(state_dir: Path) -> State | None:
    """The saved state, or None when there is none (or it is unreadable: it will be rebuilt)."""
    path = state_path(state_dir)
    try:
        raw = path.read_bytes()
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError:
        return None
    try:
        return State.model_validate_json(raw)
    except (ValidationError, ValueError):
        return None


def save_state(state_dir: Path, state: State) -> None:
    text = json.dumps(state.model_dump(mode="json"), ensure_ascii=False, separators=(",", ":"))
    try:
        atomic_write_text(state_path(state_dir), text + "\n")
    except OSError as exc:
        raise MemcliError(f"cannot write the metrics state {state_path(state_dir)}: {exc.strerror or exc}; "
                          "make the folder writable or point MEMCLI_STATE_DIR at one that is") from None
