"""A cheaper freshness check for a long-lived process on Linux: inotify on the record folders.

The store's check lists and lstat-s every record file (listing.py): at 10 000 records that is more
than a search's whole ranking, paid before every query. A process that refreshes one store again
and again (the MCP server's index, the memory tools' during a consolidation, a bench) watches the
record folders instead, and the folders above them (for a folder created, removed or renamed):
  * the watch is set up before a full check, so every change after that check's listing is in the
    queue; the kernel queues an event inside the system call that makes the change (a write, a
    rename...), so a change that returned before a refresh began is read by that refresh: unlike a
    watcher thread, nothing races the query;
  * a refresh reads the queue without blocking; no event means no file to look at, and the events
    name the files to compare with their rows (store.py);
  * whatever the events cannot tell falls back to the full check: the queue overflowed, a watched
    folder was created, removed, moved or unmounted (the watch is set up again first).
Not used (the full check stays) where inotify is not there (not Linux, the watch limit reached, no
permission), for a record folder that is a link, and on a network or FUSE file system, whose
changes made elsewhere inotify never hears of. store.py lstat-s, at every refresh, the record files
with another hard link (an edit through that name is not reported here), and leaves to the full
check whatever another process wrote to the store meanwhile. Writes through a memory map are not
reported by inotify at all (docs/performance.md).
"""

from __future__ import annotations

import os
import posixpath
from pathlib import Path
from typing import Any

from memcli.workspace import KIND_DIRS, SUMMARY_PATH

_RECORD_DIRS = frozenset(KIND_DIRS.values())
# Local file systems, whose every change goes through this kernel (anything else: no watch).
_LOCAL = frozenset({"ext2", "ext3", "ext4", "xfs", "btrfs", "tmpfs", "ramfs", "f2fs", "zfs", "bcachefs",
                    "jfs", "reiserfs", "nilfs2", "overlay", "vfat", "exfat", "ntfs3", "hfsplus"})
# inotify's event bits (linux/inotify.h)
_MODIFY, _ATTRIB, _CLOSE_WRITE = 0x2, 0x4, 0x8
_MOVED_FROM, _MOVED_TO, _CREATE, _DELETE = 0x40, 0x80, 0x100, 0x200
_DELETE_SELF, _MOVE_SELF, _UNMOUNT, _Q_OVERFLOW, _IGNORED = 0x400, 0x800, 0x2000, 0x4000, 0x8000
_ONLYDIR, _DONT_FOLLOW = 0x01000000, 0x02000000
_MASK = (_MODIFY | _ATTRIB | _CLOSE_WRITE | _MOVED_FROM | _MOVED_TO | _CREATE | _DELETE | _DELETE_SELF
         | _MOVE_SELF | _ONLYDIR | _DONT_FOLLOW)
_LOST = _DELETE_SELF | _MOVE_SELF | _UNMOUNT | _IGNORED  # a watched folder is gone


def _tree() -> dict[str, frozenset[str]]:
    """Every folder watched (workspace-relative, "" the root) → the watched folders in it."""
    out: dict[str, set[str]] = {}
    for folder in (*_RECORD_DIRS, posixpath.dirname(SUMMARY_PATH)):
        parts = folder.split("/")
        for i in range(len(parts) + 1):
            out.setdefault("/".join(parts[:i]), set())
            if i < len(parts):
                out["/".join(parts[:i])].add(parts[i])
    return {folder: frozenset(names) for folder, names in out.items()}


_TREE = _tree()


def _is_record_path(folder: str, name: str) -> bool:
    """Whether `name` in `folder` is where a record file sits (as the Listing counts them)."""
    if folder in _RECORD_DIRS:
        return name.endswith(".md") and not name.startswith(".")
    return posixpath.join(folder, name) == SUMMARY_PATH


def _fs_types(paths: list[str]) -> list[str | None]:
    """The file system type each of `paths` (real paths) is on, from /proc/self/mountinfo."""
    mounts: list[tuple[str, str]] = []
    try:
        with open("/proc/self/mountinfo", encoding="utf-8", errors="replace") as fh:
            for line in fh:
                fields, _, rest = line.partition(" - ")
                point = fields.split(" ")[4]
                for code, char in (("\\040", " "), ("\\011", "\t"), ("\\012", "\n"), ("\\134", "\\")):
                    point = point.replace(code, char)
                mounts.append((point, rest.split(" ")[0]))
    except (OSError, IndexError):
        return [None] * len(paths)
    out: list[str | None] = []
    for path in paths:
        best, kind = -1, None
        for point, fstype in mounts:  # the longest mount point above it; the later one on a tie
            if (path == point or path.startswith(point.rstrip("/") + "/")) and len(point) >= best:
                best, kind = len(point), fstype
        out.append(kind)
    return out


class Watch:
    """The inotify watch of the record folders of `root`; `arm()` first, then `changed()` at
    every refresh."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.alive = False
        self._notify: Any = None  # an inotify_simple.INotify once armed (it ships no types)
        self._folders: dict[int, str] = {}  # watch descriptor → folder

    def arm(self) -> bool:
        """(Re)start watching, events queued from now on; False where it cannot (see above)."""
        self.close()
        try:
            from inotify_simple import INotify  # here: Linux only, and only a long-lived process
        except (ImportError, OSError):  # (OSError: a libc without inotify)
            return False
        try:
            self._notify = INotify(nonblocking=True)
            for folder in _TREE:
                try:
                    wd = self._notify.add_watch(self.root / folder, _MASK)
                except FileNotFoundError:
                    continue  # not there: its creation is reported in the folder above
                self._folders[wd] = folder
        except OSError:  # a link where a folder should be (ENOTDIR), the watch limit, no permission
            self.close()
            return False
        real = [os.path.realpath(self.root / folder) for folder in self._folders.values()]
        if "" not in self._folders.values() or not all(kind in _LOCAL for kind in _fs_types(real)):
            self.close()
            return False
        self.alive = True
        return True

    def changed(self) -> set[str] | None:
        """The workspace-relative record paths named by the events queued since the last call, or
        None when the events cannot tell: the caller lists every file (the watch is set up again
        first, when it was lost; `alive` is False when that failed)."""
        assert self._notify is not None
        out: set[str] = set()
        lost = overflow = False
        for wd, mask, _, name in self._notify.read(timeout=0):
            if mask & _Q_OVERFLOW:
                overflow = True
                continue
            if mask & _LOST:
                lost = True
                continue
            folder = self._folders.get(wd)
            if folder is None:
                continue
            if name in _TREE[folder]:  # a watched folder created, removed, renamed, its mode changed
                lost = True
            elif _is_record_path(folder, name):
                out.add(posixpath.join(folder, name))
        if lost:
            self.arm()
            return None
        return None if overflow else out

    def close(self) -> None:
        if self._notify is not None:
            self._notify.close()
        self._notify, self._folders, self.alive = None, {}, False
