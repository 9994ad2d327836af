"""What the installed hooks run: the resident context at session start, and `memcli extract --hook`.

An agent waits for its hooks, and some treat a failing one as an error the user sees, so both
commands always exit 0, print nothing the agent would misread, and never block: a payload that is
missing, malformed or not JSON means "nothing to do". A bug is still written to the crash log.

`extract --hook` reads the hook's JSON (session id, transcript path, working directory), starts a
detached worker (new session, no stdin, output to /dev/null) and returns at once. The worker
(`memcli hooks capture`, hidden) waits until the session has been idle for `extract.idle_minutes`
(the same window `memcli extract` applies), extracts that one session, and records a failure in the
run history that `memcli status` shows. One worker per session: later hooks of a session that
already has one waiting (Codex fires `Stop` after every turn) leave it to that worker.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import json
import os
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from memcli import history
from memcli.errors import EXIT_OK, MemcliError
from memcli.workspace import Workspace, find_root

MAX_PAYLOAD = 1024 * 1024
STDIN_WAIT_S = 2.0  # an agent writes the payload and closes stdin; never hang on one that doesn't
FIND_WAIT_S = 60.0  # a transcript not on disk yet (still being flushed) is looked for this long
MAX_WAIT_S = 24 * 3600.0  # a session that never goes idle is extracted after a day anyway


def read_payload(stream: IO[bytes] | None) -> dict[str, Any]:
    """The hook's JSON object, or {} for anything else (a terminal, no data, not JSON)."""
    if stream is None or stream.isatty():
        return {}
    data = b""
    try:
        if os.name == "posix":
            import select

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


def _root(payload: dict[str, Any], workspace: Path | None) -> Path | None:
    if workspace is not None:
        return workspace if workspace.is_dir() else None
    cwd = _text(payload, "cwd") or os.getcwd()
    try:
        return find_root(Path(cwd))
    except OSError:
        return None


def _guarded(work: Callable[[], int]) -> int:
    """Run `work`; an error of ours means nothing to do, a bug goes to the crash log; exit 0."""
    from memcli.boundary import _write_crash_log

    try:
        work()
    except MemcliError:
        pass
    except Exception as exc:  # noqa: BLE001 - a hook must not break the agent; the bug is logged
        _write_crash_log(exc)
    return EXIT_OK


# ---- session start ------------------------------------------------------------------------------

def session_start(agent: str, stream: IO[bytes] | None, workspace: Path | None = None) -> int:
    def work() -> int:
        root = _root(read_payload(stream), workspace)
        if root is None:
            return EXIT_OK
        from memcli.context import build_context

        result = build_context(Workspace.open(root))
        if result.summary_path is None and not result.shown and not result.cut:
            return EXIT_OK  # an empty memory: nothing worth a place in the context
        text = result.text
        if agent == "claude-code":  # Claude Code adds SessionStart stdout to the context as is
            sys.stdout.write(text)
        else:  # Gemini CLI reads only JSON; Codex takes either, JSON cannot be mistaken
            out = {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": text}}
            sys.stdout.write(json.dumps(out, ensure_ascii=False) + "\n")
        return EXIT_OK

    return _guarded(work)


# ---- capture ------------------------------------------------------------------------------------

def extract_hook(stream: IO[bytes] | None, workspace: Path | None = None) -> int:
    """`memcli extract --hook`: hand the session to a detached worker and return."""
    def work() -> int:
        payload = read_payload(stream)
        root = _root(payload, workspace)
        session, transcript = _text(payload, "session_id"), _text(payload, "transcript_path")
        if root is None or not (session or transcript):
            return EXIT_OK
        args = [sys.executable, "-m", "memcli", "hooks", "capture", "--workspace", str(root)]
        args += ["--session", session] if session else []
        args += ["--transcript", transcript] if transcript else []
        detach: dict[str, Any] = {"start_new_session": True}  # out of the agent's process group
        if os.name == "nt":
            detach = {"creationflags": getattr(subprocess, "DETACHED_PROCESS", 0)
                      | getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0)}
        subprocess.Popen(args, cwd=root, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, close_fds=True, **detach)
        return EXIT_OK

    return _guarded(work)


def _lock_path(ws: Workspace, session: str | None, transcript: str | None) -> Path:
    key = hashlib.sha256(f"{session}\0{transcript}".encode()).hexdigest()[:16]
    return ws.state_dir / "hooks" / f"capture-{key}.pid"


def _claim(path: Path) -> bool:
    from memcli.consolidate.lock import pid_alive

    path.parent.mkdir(parents=True, exist_ok=True)
    for _ in range(2):
        try:
            fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            try:
                pid = int(path.read_text().strip() or 0)
            except (OSError, ValueError):
                pid = 0
            if pid and pid != os.getpid() and pid_alive(pid):
                return False  # a worker is already waiting for this session
            with contextlib.suppress(FileNotFoundError):
                path.unlink()  # its worker died: take over
            continue
        with os.fdopen(fd, "w") as fh:
            fh.write(str(os.getpid()))
        return True
    return False


def _locate(ws: Workspace, session: str | None, transcript: str | None):
    from memcli.sessions import discover
    from memcli.sessions.discover import UnknownSession, find_session

    if transcript and Path(transcript).is_file():
        infos = discover(ws, paths=[Path(transcript)])
        same = [i for i in infos if session is None or i.session_id == session]
        return (same or infos or [None])[0]
    if session:
        try:
            return find_session(ws, session, scan=True)
        except UnknownSession:
            return None
    return None


def _idle_left(info, idle_minutes: float, now: dt.datetime) -> float:
    """Seconds until the session is idle by extract's rule: its last entry's time (else the
    file's modification time) plus the idle window."""
    last = info.last_time
    if last is None:
        with contextlib.suppress(OSError):
            last = dt.datetime.fromtimestamp(Path(info.path).stat().st_mtime, dt.UTC)
    if last is None or not idle_minutes:
        return 0.0
    return (last + dt.timedelta(minutes=idle_minutes) - now).total_seconds()


def _fail(ws: Workspace, started: str, session: str | None, error: str) -> None:
    history.record(ws, "extract", {"run_id": f"extract-hook-{uuid.uuid4().hex[:12]}",
                                   "started_at": started, "finished_at": history.now(),
                                   "result": "failed", "trigger": "hook", "session": session,
                                   "error": error})


def capture(ws: Workspace, session: str | None, transcript: str | None, *,
            sleep: Callable[[float], None] = time.sleep) -> int:
    """The detached worker: wait for the session to go idle, then extract it."""
    lock = _lock_path(ws, session, transcript)
    if not _claim(lock):
        return EXIT_OK
    started = history.now()
    try:
        waited = 0.0
        while True:
            info = _locate(ws, session, transcript)
            if info is None:
                if waited >= FIND_WAIT_S:
                    _fail(ws, started, session, f"hook capture: session {session or transcript} not found")
                    return 1
                pause = 5.0
            else:
                pause = _idle_left(info, ws.config.extract.idle_minutes, dt.datetime.now(dt.UTC))
                if pause <= 0 or waited >= MAX_WAIT_S:
                    break
                pause = min(pause + 1.0, 300.0)  # re-read: the session may go on meanwhile
            sleep(pause)
            waited += pause
        from memcli.extract.run import run as extract_run

        try:
            return extract_run(ws, paths=[Path(info.path)], as_json=True)
        except MemcliError as exc:  # no model configured, a bad key...: shown by `memcli status`
            _fail(ws, started, info.session_id, str(exc))
            return exc.exit_code
        except Exception as exc:  # noqa: BLE001 - recorded for `memcli status`, logged in full
            from memcli.boundary import _write_crash_log

            log = _write_crash_log(exc)
            _fail(ws, started, info.session_id, f"internal error ({type(exc).__name__}: {exc}); "
                  f"details in {log}")
            return 3
    finally:
        with contextlib.suppress(OSError):
            lock.unlink()
