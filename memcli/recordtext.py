"""A record file as bytes and as text: reading it (bounded, never blocking), decoding (BOM, CRLF,
not UTF-8, binary, too large) and the frontmatter split.

Kept free of pydantic so that the git merge driver, which runs once per conflicting file, can read
records without paying for the models; `memcli.records.parse` builds on the same functions.

A record is a few KB (lint caps a body at 8 000 characters, the summary at 20 000), so a file
past MAX_FILE_BYTES is not a record anyone wrote by hand: every reader (the Linter, the record
store behind context, search and gc-report, the MCP and consolidation tools) reads at most
MAX_FILE_BYTES + 1 bytes of it and `decode` refuses it (lint rule `too-large`), instead of
parsing, indexing and hashing 50 MB (which took minutes and gigabytes).
"""

from __future__ import annotations

import os
import re
import stat

_FENCE = re.compile(r"^---[ \t]*$")
_CLOSE = re.compile(r"^(?:---|\.\.\.)[ \t]*$")
_SPACES = re.compile(r"\s+")

MAX_FILE_BYTES = 1 << 20  # 1 MiB: 50 times the largest record lint lets pass
OVERSIZED = (f"the file is larger than {MAX_FILE_BYTES} bytes (1 MiB), more than a record can be; "
             "memcli does not read it: split it into records or move it out of memory/ and knowledge/")
NOT_REGULAR = "not a regular file (a FIFO, socket or device); a record must be a file"
DIRECTORY = "a directory where a record file is expected; rename or remove it"
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)


def read_file(path: str | os.PathLike[str], *, follow: bool = True) -> tuple[bytes | None, str | None]:
    """(the bytes of the file at `path`, or None; why not). At most MAX_FILE_BYTES + 1 bytes are
    read, enough for `decode` to refuse a larger file. Never blocks: the file is opened
    non-blocking and must be a regular file once open, so a FIFO put where a listing saw a file a
    moment before is refused, not waited on. `follow=False`: a link is refused (one put where the
    caller's lstat saw a file, which would lead the read anywhere)."""
    try:
        fd = os.open(path, _OPEN_FLAGS | (0 if follow else getattr(os, "O_NOFOLLOW", 0)))
    except OSError as exc:
        return None, f"cannot read the file: {exc.strerror}"
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            return None, DIRECTORY
        if not stat.S_ISREG(mode):
            return None, NOT_REGULAR
        chunks: list[bytes] = []
        left = MAX_FILE_BYTES + 1
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 16))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks), None
    except OSError as exc:
        return None, f"cannot read the file: {exc.strerror}"
    finally:
        os.close(fd)


def decode(data: bytes) -> tuple[str | None, str | None, int | None]:
    """(text with BOM dropped and line ends normalised, or None; why not; the line at fault)."""
    if len(data) > MAX_FILE_BYTES:
        return None, OVERSIZED, None
    if b"\x00" in data:
        return None, "binary file (contains NUL bytes); a record is UTF-8 Markdown", None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        return (
            None,
            f"not valid UTF-8 (byte 0x{data[exc.start]:02x} on line {line}); save the file as UTF-8",
            line,
        )
    return text.replace("\r\n", "\n").replace("\r", "\n"), None, None


def split(text: str) -> tuple[str, str, int] | str:
    """(frontmatter, body, line number of the body's first line) or an error message."""
    lines = text.split("\n")
    if not lines or not _FENCE.match(lines[0]):
        if not text.strip():
            return "empty file; a record starts with a '---' frontmatter block"
        return "no frontmatter; a record must start with a '---' line, YAML fields, and a closing '---'"
    for i in range(1, len(lines)):
        if _CLOSE.match(lines[i]):
            return "\n".join(lines[1:i]), "\n".join(lines[i + 1 :]), i + 2
    return "unterminated frontmatter: no closing '---' line after the opening one on line 1"


def one_line(text: str) -> str:
    """`text` on one line: every run of whitespace one space, none at the ends."""
    return _SPACES.sub(" ", text).strip()
