"""Shared pieces of the hostile-file tests (imported as `adversarial.kit`): every route that reads
the workspace, run in-process, and a guard that keeps a FIFO from hanging the test run."""

from __future__ import annotations

import errno
import hashlib
import json
import os
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from support.cli import run as cli

from memcli.mcpserver.stdio import Front
from memcli.workspace import Workspace

CLI_ROUTES: dict[str, tuple[str, ...]] = {
    "lint": ("lint", "--format", "json"),
    "lint-cached": ("lint", "--format", "json"),  # the same again: from the result cache
    "lint-no-cache": ("lint", "--format", "json", "--no-cache"),
    "context": ("context",),
    "search": ("search", "wal"),
    "gc-report": ("gc-report",),
}


def workspace_files(root: Path) -> dict[str, str]:
    """Path → digest (or what the entry is) of everything under `root`: nothing a command may change."""
    out: dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in sorted(dirnames + filenames):
            full = Path(dirpath, name)
            rel = full.relative_to(root).as_posix()
            if full.is_symlink():
                out[rel] = "link:" + os.readlink(full)
            elif full.is_fifo():
                out[rel] = "fifo"
            elif full.is_file():
                out[rel] = hashlib.blake2b(full.read_bytes(), digest_size=8).hexdigest()
    return out


def cli_routes(root: Path, capsys: pytest.CaptureFixture[str],
               names: tuple[str, ...] = tuple(CLI_ROUTES)) -> dict[str, tuple[int, str, str]]:
    """(exit code, stdout, stderr) of each CLI route (of `names`) over `root`, each checked for what
    no route may do: exit 3 or worse, print a traceback, or more than one line of error."""
    out = {}
    for name in names:
        args = CLI_ROUTES[name]
        code, stdout, stderr = cli(capsys, *args, "-w", str(root))
        assert code in (0, 1, 2), (name, code, stderr)
        assert "Traceback" not in stderr and "Traceback" not in stdout, (name, stderr)
        assert stderr.count("\n") <= 1, (name, stderr)
        out[name] = (code, stdout, stderr)
    return out


def lint_findings(stdout: str) -> dict[str, set[str]]:
    """Path → the lint codes found there, from `lint --format json`."""
    found: dict[str, set[str]] = {}
    for f in json.loads(stdout)["findings"]:
        found.setdefault(f["path"], set()).add(f["code"])
    return found


def mcp_call(front: Front, name: str, **arguments: Any) -> tuple[bool, str, Any]:
    """(is an error, the text the model reads, the structured content) of one tool call, through the
    stdio server's own dispatch (schema checks and error shapes included)."""
    result = front.call(name, arguments)
    return result["isError"], result["content"][0]["text"], result.get("structuredContent")


def mcp_front(root: Path) -> Front:
    return Front(Workspace.open(root))


class FifoGuard:
    """While active, any FIFO under the watched folders that a reader has been waiting on for more
    than `grace` seconds is opened for writing and closed (the reader then sees an empty file and
    goes on), and `fired` says so: a test asserts it never fired instead of hanging forever."""

    def __init__(self, root: Path, grace: float = 8.0) -> None:
        self.root, self.grace = root, grace
        self.fired: list[str] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)

    def _fifos(self) -> list[Path]:
        found = []
        for dirpath, dirnames, filenames in os.walk(self.root):
            for name in dirnames + filenames:
                full = Path(dirpath, name)
                if full.is_fifo():
                    found.append(full)
        return found

    def _watch(self) -> None:
        start = time.monotonic()
        while not self._stop.wait(0.2):
            if time.monotonic() - start < self.grace:
                continue
            for fifo in self._fifos():
                try:  # succeeds only while some reader has the FIFO open (or waits in open)
                    fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
                except OSError as exc:
                    if exc.errno not in (errno.ENXIO, errno.ENOENT):
                        raise
                    continue
                os.close(fd)
                self.fired.append(str(fifo.relative_to(self.root)))

    def __enter__(self) -> FifoGuard:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
