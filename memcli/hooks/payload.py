"""What an agent's hook sends, read without ever blocking it, and the light half of `memcli extract
--hook`: read the hook's JSON and hand it to a detached worker (capture.py). It imports nothing
heavy (no pydantic, no Typer, no agent's reader: `memcli.entry` calls it directly), so the agent
gets its exit 0 in the time Python takes to start.
"""

from __future__ import annotations

import json
import os
import select
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from memcli.boundary import _write_crash_log
from memcli.errors import EXIT_OK, MemcliError
from memcli.ownrun import own_run

MAX_PAYLOAD = 1024 * 1024
STDIN_WAIT_S = 2.0  # an agent writes the payload and closes stdin; never hang on one that doesn't


def read_payload(stream: IO[bytes] | None) -> dict[str, Any]:
    """The hook's JSON object, or {} for anything else (a terminal, no data, not JSON)."""
    if stream is None or stream.isatty():
        return {}
    data = b""
    try:
        if os.name == "posix":
            deadline = time.monotonic() + STDIN_WAIT_S
            while len(data) < MAX_PAYLOAD:
                left = deadline - time.monotonic()
                if left <= 0 or not select.select([stream], [], [], left)[0]:
                    break
                chunk = os.read(stream.fileno(), 65536)
                if not chunk:
                    break
                data += chunk
        else:
            data = stream.read(MAX_PAYLOAD)
        payload = json.loads(data.decode("utf-8", "replace"))
    except (OSError, ValueError):
        return {}
    return payload if isinstance(payload, dict) else {}


def _text(payload: dict[str, Any], key: str) -> str | None:
    value = payload.get(key)
    return value if isinstance(value, str) and value.strip() and "\0" not in value else None


def guarded(work: Callable[[], int]) -> int:
    """Run `work`; an error of ours means nothing to do, a bug goes to the crash log; exit 0."""
    try:
        work()
    except MemcliError:
        pass
    except Exception as exc:  # noqa: BLE001 - a hook must not break the agent; the bug is logged
        _write_crash_log(exc)
    return EXIT_OK


def extract_hook(stream: IO[bytes] | None, workspace: Path | None = None) -> int:
    """`memcli extract --hook`: hand the session to a detached worker and return."""
    import subprocess  # here: the session-start hook reads its payload through this module too

    def work() -> int:
        payload = read_payload(stream)
        session, transcript = _text(payload, "session_id"), _text(payload, "transcript_path")
        if own_run() or not (session or transcript):
            return EXIT_OK
        event = _text(payload, "hook_event_name")
        if event and transcript and not os.path.isfile(transcript):
            from memcli.agents import registry  # here: the agents' declarations, for this case alone

            if event in registry.end_events():
                return EXIT_OK  # nothing was written (`claude mcp list` ends a "session" that way)
        cwd = _text(payload, "cwd") or os.getcwd()
        # the worker finds the workspace (finding it here would load the config machinery)
        args = [sys.executable, "-m", "memcli", "hooks", "capture", "--cwd", cwd]
        args += ["--workspace", str(workspace)] if workspace else []
        args += ["--session", session] if session else []
        args += ["--transcript", transcript] if transcript else []
        args += ["--event", event] if event else []
        detach: dict[str, Any] = {"start_new_session": True}  # out of the agent's process group
        if os.name == "nt":
            detach = {"creationflags": getattr(subprocess, "DETACHED_PROCESS", 0)
                      | getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0)}
        where = workspace or (cwd if Path(cwd).is_dir() else None)
        subprocess.Popen(args, cwd=where, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, close_fds=True, **detach)
        return EXIT_OK

    return guarded(work)
