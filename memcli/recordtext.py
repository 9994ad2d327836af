"""A record file as text: decoding (BOM, CRLF, not UTF-8, binary) and the frontmatter split.

Kept free of pydantic so that the git merge driver, which runs once per conflicting file, can read
records without paying for the models; `memcli.records.parse` builds on the same two functions.
"""

from __future__ import annotations

import re

_FENCE = re.compile(r"^---[ \t]*$")
_CLOSE = re.compile(r"^(?:---|\.\.\.)[ \t]*$")
_BINARY_PROBE = 8192
_SPACES = re.compile(r"\s+")


def decode(data: bytes) -> tuple[str | None, str | None, int | None]:
    """(text with BOM dropped and line ends normalised, or None; why not; the line at fault)."""
    if b"\x00" in data[:_BINARY_PROBE]:
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
