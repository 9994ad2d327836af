"""What the installed capture hooks start: the worker that extracts one session.

An agent waits for its hooks, and some treat a failing one as an error the user sees, so every
hook always exits 0, prints nothing the agent would misread, and never blocks: a payload that is
missing, malformed or not JSON means "nothing to do". A bug is still written to the crash log.

`extract --hook` (payload.py) reads the hook's JSON (session id, transcript path, working
directory, event), starts a detached worker (new session, no stdin, output to /dev/null) and
returns at once. The worker (`memcli hooks capture`, hidden) extracts that one session:
- after a session end (an event its agent declares as one, memcli/agents/: `SessionEnd` for
  Claude Code and Gemini CLI) at once, and not at all when the transcript it names was never
  written (`claude mcp list` ends a "session" that has none);
- after events that fire while the session goes on (Codex `Stop` after every turn, PreCompact,
  PreCompress) once it has been idle for `extract.idle_minutes`, the window `memcli extract`
  applies.
Its `memcli_remember` calls are staged whether or not a model can extract the rest; an install
that cannot extract yet (no model set, no litellm) records the session as waiting for a model, a
state `memcli status` shows, not a failure. So is a session captured once today's budget
(memory.budget.day_*) is spent: recorded as deferred, no model called; `memcli extract` (or a later
capture, once the budget allows) extracts it. Any other failure is recorded for `memcli status`.
One worker per session: later hooks of a session that already has one waiting leave it to that
worker; a session end among them tells it (a marker beside its lock) to stop waiting and extract at
once, as if it had been started by that end.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import os
import time
import uuid
from collections.abc import Callable
from pathlib import Path

from memcli import history
from memcli.agents import registry
from memcli.atomicio import make_dirs, new_file_mode
from memcli.boundary import _write_crash_log
from memcli.errors import EXIT_OK, MemcliError
from memcli.git.group import pid_alive
from memcli.hooks.start import find_workspace
from memcli.llm.spend import day_spent
from memcli.ownrun import own_run
from memcli.workspace import Workspace

FIND_WAIT_S = 60.0  # a transcript not on disk yet (still being flushed) is looked for this long
MAX_WAIT_S = 24 * 3600.0  # a session that never goes idle is extracted after a day anyway
POLL_S = 1.0  # how often a waiting worker looks for the end marker a later session end leaves


def _lock_path(ws: Workspace, session: str | None, transcript: str | None) -> Path:
    key = hashlib.sha256(f"{session}\0{transcript}".encode()).hexdigest()[:16]
    return ws.state_dir / "hooks" / f"capture-{key}.pid"


def _ended_marker(lock: Path) -> Path:
    return lock.with_suffix(".ended")


def _napper(marker: Path) -> Callable[[float], None]:
    """A sleep that returns early once `marker` exists (the session ended meanwhile)."""
    def nap(seconds: float) -> None:
        until = time.monotonic() + seconds
        while (left := until - time.monotonic()) > 0 and not marker.exists():
            time.sleep(min(left, POLL_S))
    return nap


def _claim(path: Path) -> bool:
    make_dirs(path.parent)
    for _ in range(2):
        try:
            fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, new_file_mode(path.parent))
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
    # here: a worker another one already waits for (every Codex turn end but the first) stops
    # before it reads a session
    from memcli.sessions.discover import UnknownSession, discover, find_session

    if transcript and Path(transcript).is_file():
        infos = discover(ws, paths=[Path(transcript)])
        same = [i for i in infos if session is None or i.session_id == session]
        return next(iter(same or infos), None)
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


def _record(ws: Workspace, started: str, session: str | None, result: str, **why: str) -> None:
    history.record(ws, "extract", {"run_id": f"extract-hook-{uuid.uuid4().hex[:12]}",
                                   "started_at": started, "finished_at": history.now(),
                                   "result": result, "trigger": "hook", "session": session, **why})


def _fail(ws: Workspace, started: str, session: str | None, error: str) -> None:
    _record(ws, started, session, "failed", error=error)


def run_capture(cwd: str | None, workspace: Path | None, session: str | None,
                transcript: str | None, event: str | None = None) -> int:
    """`memcli hooks capture`: the detached worker, for the workspace the session ran in."""
    ws = find_workspace(cwd, workspace)
    return EXIT_OK if ws is None else capture(ws, session, transcript, event=event)


def capture(ws: Workspace, session: str | None, transcript: str | None, *, event: str | None = None,
            sleep: Callable[[float], None] | None = None) -> int:
    """Extract the session: at once after its end, else once it has gone idle."""
    if own_run():
        return EXIT_OK  # a run of an agent memcli started as its model is never captured
    ended = event in registry.end_events()
    if ended and transcript and not Path(transcript).is_file():
        return EXIT_OK  # a session that ended without writing anything left nothing to extract
    lock = _lock_path(ws, session, transcript)
    marker = _ended_marker(lock)
    if not _claim(lock):
        if ended:  # the worker already waiting (started by a PreCompact, say) need wait no longer
            with contextlib.suppress(OSError):
                marker.touch()
        return EXIT_OK
    sleep = sleep or _napper(marker)
    started = history.now()
    try:
        waited = 0.0
        while True:
            ended = ended or marker.exists()
            info = _locate(ws, session, transcript)
            if info is None:
                if waited >= FIND_WAIT_S:
                    _fail(ws, started, session, f"hook capture: session {session or transcript} not found")
                    return 1
                pause = 5.0
            else:
                idle = 0.0 if ended else ws.config.extract.idle_minutes
                pause = _idle_left(info, idle, dt.datetime.now(dt.UTC))
                if pause <= 0 or waited >= MAX_WAIT_S:
                    break
                pause = min(pause + 1.0, 300.0)  # re-read: the session may go on meanwhile
            sleep(pause)
            waited += pause
        spent = day_spent(ws)
        if spent:  # background work waits for the budget: a state, not a failure
            _record(ws, started, info.session_id, "deferred", note=f"waits for the budget: {spent}")
            return EXIT_OK
        # here: extraction is most of what the worker imports, and only once there is work
        from memcli.extract.run import run as extract_run

        try:
            return extract_run(ws, paths=[Path(info.path)], as_json=True, ended=ended,
                               session=info.session_id, session_agent=info.agent, background=True)
        except MemcliError as exc:  # no model configured, a bad key...: shown by `memcli status`
            from memcli.extract.ready import waiting_for_model  # here: with extract.run, as above

            waiting = waiting_for_model(ws)
            if waiting is not None:  # a state, not a failure: its memcli_remember calls are staged
                _record(ws, started, info.session_id, "waiting", note=waiting)
                return EXIT_OK
            _fail(ws, started, info.session_id, str(exc))
            return exc.exit_code
        except Exception as exc:  # noqa: BLE001 - recorded for `memcli status`, logged in full
            log = _write_crash_log(exc)
            _fail(ws, started, info.session_id, f"internal error ({type(exc).__name__}: {exc}); "
                  f"details in {log}")
            return 3
    finally:
        with contextlib.suppress(OSError):
            marker.unlink()
        with contextlib.suppress(OSError):
            lock.unlink()
