"""Which files a refresh must look at, from the previous listing instead of every row.

When the listing's digest differs from the stored one, something changed — usually one file or a
few (an edit, a commit) — and comparing 10 000 stamps with 10 000 rows costs more than the rest of
the refresh. So the last listing that the rows fully reflect is kept (names and stamps per folder,
and the paths whose stamps were too fresh to trust): when every folder holds the same names as
then, the files to look at are those whose stamp moved, found by comparing the stamp arrays in C,
plus the untrusted ones. Any other change (a file added, removed or renamed) compares every row.
"""

from __future__ import annotations

import sqlite3
from array import array

from memcli.store.listing import Listing, Stamp

_CHUNK = 64  # stamps compared a slice at a time, then one by one inside a slice that differs


def moved(conn: sqlite3.Connection, found: Listing) -> dict[str, Stamp] | None:
    """Path → stamp now of the files whose stamp differs from the kept listing or was not trusted
    then, when the record folders hold the same names; None when that cannot be told (compare
    every row)."""
    kept = {folder: (names, stamps, inodes) for folder, names, stamps, inodes
            in conn.execute("SELECT folder, names, stamps, inodes FROM listing")}
    untrusted = conn.execute("SELECT value FROM meta WHERE key = 'untrusted'").fetchone()
    if untrusted is None or len(kept) != len(found.folders):
        return None
    wanted = {p for p in untrusted[0].split("\n") if p}
    out: dict[str, Stamp] = {}
    for prefix, names, stamps, inodes in found.folders:
        old = kept.get(prefix)
        if old is None or old[0] != "\n".join(names):
            return None
        old_stamps, old_inodes = array("q"), array("Q")
        old_stamps.frombytes(old[1])
        old_inodes.frombytes(old[2])
        indexes = _differing(stamps, old_stamps, 3) | _differing(inodes, old_inodes, 1)
        if any(p.startswith(prefix) for p in wanted):  # (few: the files changed in the last seconds)
            indexes.update(i for i, name in enumerate(names) if prefix + name in wanted)
        for i in indexes:
            out[prefix + names[i]] = found.stamp(prefix, i)
    return out


def _differing(now: array, then: array, width: int) -> set[int]:
    """Indexes of the entries (`width` numbers each) that differ between two stamp arrays."""
    out: set[int] = set()
    step = _CHUNK * width
    for start in range(0, len(now), step):
        if now[start : start + step] != then[start : start + step]:
            out.update((start + i) // width for i in range(min(step, len(now) - start))
                       if now[start + i] != then[start + i])
    return out


def keep(conn: sqlite3.Connection, found: Listing | None, untrusted: list[str]) -> None:
    """Keep `found` as the listing the rows now reflect (None: they may not, forget it)."""
    conn.execute("DELETE FROM listing")
    if found is None:
        conn.execute("DELETE FROM meta WHERE key = 'untrusted'")
        return
    conn.executemany("INSERT INTO listing VALUES (?, ?, ?, ?)",
                     [(prefix, "\n".join(names), stamps.tobytes(), inodes.tobytes())
                      for prefix, names, stamps, inodes in found.folders])
    conn.execute("INSERT OR REPLACE INTO meta VALUES ('untrusted', ?)", ("\n".join(untrusted),))
