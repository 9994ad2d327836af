"""A git child in a process group of its own: started only once recorded, ended as a whole.

`git commit` runs the repository's hooks, and a hook may outlive a killed git (or git may outlive a
killed memcli and finish the commit after recovery restored the old files). So git starts in a
process group of its own, behind a gate: the process exists, the caller records its pid (memcli's
consolidation journal), and only then lets it `exec` git. Whoever finds the run dead (memcli after
a failed commit, or the next command's recovery) ends that group before deciding whether the
commit happened.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable, Mapping
from pathlib import Path

from memcli.values import frozen

# `read` fails at end of input: a memcli killed before it opened the gate never starts git
_GATE = 'read -r go && exec "$@"'
_TERM_GRACE_S = 10.0  # git removes its lock files on SIGTERM; SIGKILL only if it does not end


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # exists, owned by someone else
    return True


def process_tag(pid: int) -> str | None:
    """Identity of a running process beyond its pid (Linux /proc); None where it cannot be told.
    After a reboot or a long time, another process may carry the dead owner's pid."""
    try:
        boot = Path("/proc/sys/kernel/random/boot_id").read_text().strip()
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat.rsplit(")", 1)[-1].split()
    return f"{boot}:{fields[19]}" if len(fields) > 19 else None


@frozen
class Child:
    """A started process group (its leader's pid is the group id)."""

    pid: int
    proc: str | None  # process_tag of the leader: tells a reused pid from ours
    sid: int  # the session it was started in: a reused group id elsewhere is never signalled

    def to_json(self) -> dict[str, object]:
        return {"pid": self.pid, "proc": self.proc, "sid": self.sid}

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> Child:
        proc = data.get("proc")
        sid = int(str(data.get("sid", -1)))
        return cls(int(str(data["pid"])), proc if isinstance(proc, str) else None, sid)


def run_gated(args: list[str], *, cwd: Path, env: Mapping[str, str],
              started: Callable[[Child], None]) -> subprocess.CompletedProcess[str]:
    """Run `git ARGS` in a new process group; `started(child)` runs (and must record it) before git
    starts. Any exception or interrupt while it runs ends the whole group before propagating, and
    so does git dying of a signal (its hooks would live on, orphaned)."""
    argv = ["git", *args]
    gate_r, gate_w = os.pipe()
    # files, not pipes: a hook left running must not keep memcli waiting for the end of its output
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        try:
            proc = subprocess.Popen(["sh", "-c", _GATE, "memcli-gate", *argv], cwd=cwd, env=dict(env),
                                    stdin=gate_r, stdout=out, stderr=err, process_group=0)
        finally:
            os.close(gate_r)
        child = Child(proc.pid, process_tag(proc.pid), os.getsid(0))
        try:
            try:
                started(child)
                os.write(gate_w, b"go\n")
            finally:
                os.close(gate_w)  # the hooks see an empty stdin, never memcli's terminal
            code = proc.wait()
        except BaseException:
            end_group(child)
            proc.wait()
            raise
        if code < 0:
            end_group(child)
        out.seek(0)
        err.seek(0)
        return subprocess.CompletedProcess(argv, code, out.read().decode("utf-8", "replace"),
                                           err.read().decode("utf-8", "replace"))


def _members(child: Child) -> list[int]:
    """Live processes still in the child's group (and session); without /proc, the leader only."""
    proc_dir = Path("/proc")
    if not proc_dir.is_dir():
        return [child.pid] if pid_alive(child.pid) else []
    found = []
    for entry in proc_dir.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[-1].split()
        except OSError:
            continue
        if fields[0] == "Z":
            continue  # dead already; only its parent (maybe not us) can reap it
        if int(fields[2]) == child.pid and (child.sid < 0 or int(fields[3]) == child.sid):
            found.append(int(entry.name))
    return found


def _leader_is_ours(child: Child) -> bool:
    return pid_alive(child.pid) and (child.proc is None or process_tag(child.pid) in (None, child.proc))


def end_group(child: Child, timeout: float = 30.0) -> bool:
    """SIGTERM the group, SIGKILL it after a grace period; True once no member is left."""
    if pid_alive(child.pid) and not _leader_is_ours(child):
        return True  # the pid is someone else's now, so our group (same id) has no member left
    deadline = time.monotonic() + timeout
    sig = signal.SIGTERM
    term_until = time.monotonic() + _TERM_GRACE_S
    while _members(child):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(child.pid, sig)
        if time.monotonic() > term_until:
            sig = signal.SIGKILL
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)  # polling a process we cannot wait() for (not our child after a restart)
    return True
