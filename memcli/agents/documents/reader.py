"""A document read as a source: its blocks are its entries (the reader of the documents' Parts).

An entry is one block (markdown.py): `index` its first line and `end` its last, 1-based, so a
Source `{session_id: "<kind>/<path>", range: [a, b]}` names lines a..b as an editor numbers them,
and `memcli source` / `memcli why` find the blocks there like a session's entries. Text is
redacted as `memcli extract` redacts, here already: a document is read to be shown or sent.
Blocks of a file the user keeps are said by the user; an agent's own memory by the agent (role
`assistant`); the frontmatter is metadata (`system`).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from memcli.agents.documents.kinds import AGENT, KINDS, in_vendored_folder
from memcli.agents.documents.markdown import Parsed, parse
from memcli.agents.parts import Discovery, Reader
from memcli.secrets import redact
from memcli.transcript.base import SessionReadError
from memcli.transcript.model import Entry, ReadStats, Role, SessionInfo

MAX_BYTES = 2_000_000  # an instruction or memory file is a few KB; past this it is something else


class NotText(SessionReadError):
    """A document that is not UTF-8 text (an image, an archive, a binary)."""


def read_text(path: Path) -> str:
    """The file's text; SessionReadError when it is missing, too large, or not text."""
    try:
        if path.is_dir():
            raise SessionReadError(f"{path} is a folder, not a document")
        data = path.read_bytes()
    except OSError as exc:
        raise SessionReadError(f"cannot read {path}: {exc.strerror or exc}") from None
    if len(data) > MAX_BYTES:
        raise NotText(f"{path}: {len(data):,} bytes is too large for a memory or instruction file")
    if b"\0" in data[:8192]:
        raise NotText(f"{path}: not a text file (memcli import reads Markdown)")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise NotText(f"{path}: not UTF-8 text (memcli import reads Markdown)") from None


def info_of(kind: str, source_id: str, path: Path) -> SessionInfo:
    return SessionInfo(kind, source_id, path, extra={"document": True})


def document(info: SessionInfo) -> Parsed:
    return parse(read_text(Path(info.path)))


def role(kind: str, block_kind: str) -> Role:
    if block_kind == "frontmatter":
        return "system"
    author = KINDS[kind].author if kind in KINDS else "user"
    return "assistant" if author == AGENT else "user"


def entries(info: SessionInfo, stats: ReadStats) -> Iterator[Entry]:
    doc = document(info)
    stats.lines = doc.lines
    # a vendored folder's file is third-party text put before the agent, not the user's words
    third_party = in_vendored_folder(info.session_id.partition("/")[2])
    for block in doc.blocks:
        yield Entry(block.start, role(info.agent, block.kind), redact(block.text)[0],
                    end=block.end if block.end != block.start else None, injected=third_party)


def describe(path: Path, head: object) -> list[SessionInfo]:
    """A document is never recognised by content (no transcript reader claims Markdown): this is
    only reached for a path named as a document, read as a plain Markdown file."""
    return [info_of("markdown", f"markdown/{Path(path).as_posix()}", Path(path))]


READER = Reader(describe, entries, lines=lambda info, count: (1, max(count, 1)))
DISCOVERY = Discovery(is_transcript=lambda path: False)  # never among a workspace's sessions
