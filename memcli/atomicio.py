"""Atomic writes: every change memcli makes to a workspace goes through here.

A temp file in the target's own directory, fsync'd, then `os.replace`d over the target, then the
directory fsync'd: a crash at any point leaves either the old file or the new one, never a mix.
A process killed mid-write (SIGKILL: nothing runs) also leaves its temp file, hidden beside the
target (`leftover_of` names it, for the code that tidies such a folder).

A new file or folder is never more open than the folder it is made in: inside a private folder
(one that group and others cannot enter, as memcli's state folder: `private_dir`) it is 0600 /
0700 whatever the umask, elsewhere the umask decides. A rewritten file keeps its mode.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import tempfile
import threading
from pathlib import Path


def _fsync_dir(directory: Path) -> None:
    with contextlib.suppress(OSError):  # not every filesystem lets a directory be opened
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _private(folder: Path) -> bool:
    try:
        return os.stat(folder).st_mode & 0o077 == 0
    except OSError:
        return False


def new_file_mode(folder: Path) -> int:
    """The mode of a file created in `folder`: the umask's, and 0600 at most in a private folder."""
    mode = 0o666 & ~_umask()
    return mode & 0o600 if _private(folder) else mode


def make_dirs(folder: Path | str) -> None:
    """`folder` and its missing parents, each new one private (0700) when the one it is made in is."""
    folder = Path(folder)
    if folder.is_dir():
        return
    missing = []
    while not folder.exists() and folder != folder.parent:
        missing.append(folder)
        folder = folder.parent
    for new in reversed(missing):
        try:
            new.mkdir(mode=0o700) if _private(new.parent) else new.mkdir()
        except FileExistsError:
            if not new.is_dir():
                raise


def private_dir(folder: Path | str) -> Path:
    """`folder` made (or kept) private: 0700, its parents made as `make_dirs` makes them. For
    memcli's state (index, ledgers, run log): transcripts' text and paths are in there."""
    folder = Path(folder)
    make_dirs(folder.parent)
    try:
        folder.mkdir(mode=0o700)
    except FileExistsError:
        with contextlib.suppress(OSError):  # a folder memcli does not own: left as it is
            st = os.stat(folder)
            if st.st_mode & 0o077 and st.st_uid == os.getuid():
                os.chmod(folder, st.st_mode & 0o700)
    return folder


_PREFIX, _SUFFIX = ".", ".tmp"
_RANDOM = re.compile(r"[a-z0-9_]{8}")  # tempfile's names (tempfile._RandomNameSequence)


def leftover_of(name: str, target: str) -> bool:
    """Whether a file named `name` is the temp file an interrupted write of `target` (a file name in
    the same folder) left."""
    return left_by(name) == target


def left_by(name: str) -> str | None:
    """The file name whose interrupted write left a temp file named `name` in the same folder, or
    None where `name` is no such temp file."""
    body = len(name) - len(_SUFFIX) - 9  # where the "." before the 8 random characters is
    if (body <= len(_PREFIX) or not name.startswith(_PREFIX) or not name.endswith(_SUFFIX)
            or name[body] != "." or _RANDOM.fullmatch(name, body + 1, body + 9) is None):
        return None
    return name[len(_PREFIX):body]


def leftovers(folder: Path | str, targets: set[str]) -> list[str]:
    """The names in `folder` of the temp files interrupted writes of `targets` (file names in it)
    left, sorted; none where the folder cannot be listed."""
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    return sorted(n for n in names if n.startswith(_PREFIX) and any(leftover_of(n, t) for t in targets))


def atomic_write_bytes(path: Path | str, data: bytes, *, mode: int | None = None) -> None:
    path = Path(path)
    make_dirs(path.parent)
    fd, tmp = tempfile.mkstemp(prefix=f"{_PREFIX}{path.name}.", suffix=_SUFFIX, dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        if mode is None:
            try:
                mode = path.stat().st_mode & 0o777
            except FileNotFoundError:
                mode = new_file_mode(path.parent)
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    _fsync_dir(path.parent)


def atomic_write_text(path: Path | str, text: str, *, mode: int | None = None) -> None:
    atomic_write_bytes(path, text.encode("utf-8"), mode=mode)


def durable_append(path: Path | str, line: str) -> None:
    """Append one line (a ledger's row) and fsync it: an append-only log grows, never replaced whole."""
    path = Path(path)
    make_dirs(path.parent)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, new_file_mode(path.parent))
    with os.fdopen(fd, "a", encoding="utf-8") as fh:
        fh.write(line)
        fh.flush()
        os.fsync(fh.fileno())


class AppendLog:
    """An append-only JSON-lines log (extract's ledger, the import's), replayed into memory when
    opened: a subclass's `_apply` folds each row in, and `_append` applies a row and writes it with
    an fsync, under one lock. A line that does not parse or apply (a torn last line from a killed
    run) is skipped: the work it recorded is simply done again."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._load()

    def _load(self) -> None:
        try:
            lines = self.path.read_text(encoding="utf-8").splitlines()
        except FileNotFoundError:
            return
        for line in lines:
            try:
                self._apply(json.loads(line))
            except (ValueError, KeyError, TypeError):
                continue

    def _apply(self, row: dict) -> None:
        raise NotImplementedError

    def _append(self, row: dict) -> None:
        line = json.dumps(row, ensure_ascii=False) + "\n"
        private_dir(self.path.parent)  # a ledger lives in the state folder
        with self._lock:
            self._apply(row)
            durable_append(self.path, line)


def atomic_delete(path: Path | str) -> None:
    """Remove a file and make the removal durable; a missing file is not an error."""
    path = Path(path)
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)
        _fsync_dir(path.parent)


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current
