"""The one way tests leave what a SIGKILLed atomic write leaves: memcli.atomicio's write, in a fresh
interpreter, killed just before its rename (the temp file written and fsynced, the target untouched)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
KILLED = """
import os, signal, sys
from memcli import atomicio
atomicio.os.replace = lambda *_: os.kill(os.getpid(), signal.SIGKILL)  # killed just before the rename
atomicio.atomic_write_bytes(sys.argv[1], sys.argv[2].encode())
"""


def killed_write(target: Path, text: str) -> None:
    """Write `text` to `target` through atomicio and kill the writer before the rename."""
    done = subprocess.run([sys.executable, "-c", KILLED, str(target), text],
                          env={**os.environ, "PYTHONPATH": str(REPO)})
    assert done.returncode == -signal.SIGKILL, done.returncode
