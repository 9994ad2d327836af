"""The one freshness check's first half: the record files of a workspace and their stamps.

Only the record folders are scanned, one level deep, with scandir over an open folder (each stat
is then relative to it, not a walk of the whole path): at 10 000 records this runs before every
read, so it keeps no stat objects and builds no path strings. A file's stamp is its mtime, size,
ctime and inode: an edit that puts the mtime back still moves the ctime, a save through a new file
moves the inode.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
from array import array
from collections.abc import Iterator
from pathlib import Path

from memcli.workspace import KIND_DIRS, SUMMARY_PATH

RECORD_DIRS = tuple(KIND_DIRS.values())
_INO_MASK = (1 << 63) - 1

Stamp = tuple[int, int, int, int]  # mtime_ns, size, ctime_ns, inode


@contextlib.contextmanager
def _scandir(folder: Path) -> Iterator[Iterator[os.DirEntry]]:
    """os.scandir over an open descriptor of `folder` where the platform allows it (each entry's
    stat is then an fstatat relative to the folder), else over its path."""
    if os.scandir not in os.supports_fd:
        with os.scandir(folder) as entries:
            yield entries
        return
    fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        with os.scandir(fd) as entries:
            yield entries
    finally:
        os.close(fd)


class Listing:
    """The record files found by one scan, per folder: names and stamps side by side (no stat
    objects, no path strings: at 10 000 records this runs before every read), and the entries
    that sit where a record file would but are not regular files (links, folders), which the
    store does not keep and readers take from the disk themselves."""

    def __init__(self, root: Path) -> None:
        self.folders: list[tuple[str, list[str], array, array]] = []
        self.odd: list[str] = []
        self.shared: list[str] = []  # record files with another hard link (see watch.py)
        # A record folder reached through a link: the Linter's walk does not follow it, so readers
        # that must agree with it read the files themselves (search follows it, as it always has).
        self.linked = any(os.path.islink(root / folder) for folder in ("memory", "knowledge", *RECORD_DIRS))
        for folder in RECORD_DIRS:
            names: list[str] = []
            stamps, inodes = array("q"), array("Q")
            try:
                with _scandir(root / folder) as entries:
                    for entry in entries:
                        name = entry.name
                        if not name.endswith(".md") or name[0] == ".":
                            continue
                        try:
                            st = entry.stat(follow_symlinks=False)
                        except OSError:  # gone since the directory was read
                            continue
                        if not stat.S_ISREG(st.st_mode):
                            self.odd.append(f"{folder}/{name}")
                            continue
                        names.append(name)
                        stamps.extend((st.st_mtime_ns, st.st_size, st.st_ctime_ns))
                        inodes.append(st.st_ino)
                        if st.st_nlink > 1:
                            self.shared.append(f"{folder}/{name}")
            except OSError:
                continue
            self.folders.append((folder + "/", names, stamps, inodes))
        try:
            st = os.lstat(root / SUMMARY_PATH)
        except OSError:
            return
        if stat.S_ISREG(st.st_mode):
            stamps = array("q", (st.st_mtime_ns, st.st_size, st.st_ctime_ns))
            self.folders.append(("", [SUMMARY_PATH], stamps, array("Q", (st.st_ino,))))
            if st.st_nlink > 1:
                self.shared.append(SUMMARY_PATH)
        else:
            self.odd.append(SUMMARY_PATH)

    def __len__(self) -> int:
        return sum(len(names) for _, names, _, _ in self.folders)

    def digest(self) -> str:
        """One digest of every (path, stamp): equal to the stored one means nothing changed."""
        h = hashlib.blake2b(digest_size=16)
        for prefix, names, stamps, inodes in self.folders:
            h.update(f"{prefix}\0{len(names)}\0".encode())
            h.update("\n".join(names).encode())
            h.update(stamps.tobytes())
            h.update(inodes.tobytes())
        return h.hexdigest()

    def stamp(self, prefix: str, i: int) -> Stamp:
        """The stamp of the `i`th file of the folder listed under `prefix`."""
        _, _, stamps, inodes = next(f for f in self.folders if f[0] == prefix)
        return stamps[3 * i], stamps[3 * i + 1], stamps[3 * i + 2], inodes[i] & _INO_MASK

    @staticmethod
    def stamp_of(st: os.stat_result) -> Stamp:
        return st.st_mtime_ns, st.st_size, st.st_ctime_ns, st.st_ino & _INO_MASK

    def files(self) -> dict[str, Stamp]:
        """Path → stamp (the inode cut to 63 bits: SQLite integers are signed)."""
        return {prefix + name: (stamps[3 * i], stamps[3 * i + 1], stamps[3 * i + 2], inodes[i] & _INO_MASK)
                for prefix, names, stamps, inodes in self.folders for i, name in enumerate(names)}
