"""A fingerprint of memcli's own code, for caches whose entries a code change can invalidate."""

from __future__ import annotations

import hashlib
from pathlib import Path

_PKG = Path(__file__).resolve().parent  # the memcli package


def code_fingerprint(parts: tuple[str, ...], salt: str) -> bytes:
    """Hash of `salt` and the size and mtime of every .py file under the named package parts
    (sub-packages or modules of memcli): an edit or an upgrade changes it, a plain run does not."""
    h = hashlib.blake2b(digest_size=16)
    h.update(salt.encode())
    for name in parts:
        base = _PKG / name
        for f in sorted(base.rglob("*.py")) if base.is_dir() else [base]:
            try:
                st = f.stat()
            except OSError:
                continue
            h.update(f"{f}:{st.st_size}:{st.st_mtime_ns}".encode())
    return h.digest()
