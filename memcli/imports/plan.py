"""What an import has to do: per document, the blocks not imported yet, packed into chunks.

A document is read (memcli/agents/documents/), its kind picks the blocks worth importing and their
scope, each block is redacted and fingerprinted, and the blocks whose fingerprint the ledger does
not hold yet become entries of extract's chunker (memcli/extract/prepare.py), which packs them in
order under the token budget. A block already imported closes the open chunk, as in extract, so a
chunk is a run of neighbouring new blocks and one changed block is sent alone.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from memcli.agents.documents.discovery import Found
from memcli.agents.documents.kinds import AGENT, KINDS, Where, select
from memcli.agents.documents.markdown import Parsed, parse
from memcli.agents.documents.reader import read_text
from memcli.extract.prepare import HUMAN, Chunk, Chunker, Part, Prepared, estimate_tokens
from memcli.imports.ledger import Ledger, fingerprint
from memcli.secrets import redact
from memcli.transcript.base import SessionReadError


@dataclass(frozen=True)
class Piece:
    """One block to import: its lines, fingerprint, redacted text and the headings above it."""

    start: int
    end: int
    fp: str
    text: str
    trail: tuple[str, ...]


@dataclass(frozen=True)
class Work:
    """One chunk to send: the document, its scope, the chunk and the blocks in it."""

    source: Found
    title: str
    scope: str
    role: str  # user | agent: who said the blocks (the staging files' provenance)
    chunk: Chunk
    pieces: tuple[Piece, ...]


@dataclass
class Document:
    """What the plan found in one file, for the summary and the dry run."""

    source: Found
    scope: str = ""
    new: list[Piece] = field(default_factory=list)
    imported: int = 0  # blocks already imported
    left_out: tuple[str, ...] = ()
    error: str | None = None


@dataclass
class Plan:
    documents: list[Document] = field(default_factory=list)
    work: list[Work] = field(default_factory=list)

    @property
    def redactions(self) -> int:
        return sum(w.chunk.redactions for w in self.work)


def _header(piece: Piece) -> str:
    where = f"--- lines {piece.start}-{piece.end}" if piece.end != piece.start else f"--- line {piece.start}"
    return where + (f" (under: {' > '.join(piece.trail)})" if piece.trail else "")


def plan(found: list[Found], ledger: Ledger, budget: int, root: Path) -> Plan:
    """The chunks to send for `found` (the documents of the workspace at `root`)."""
    out = Plan()
    for source in found:
        doc = Document(source)
        out.documents.append(doc)
        kind = KINDS[source.kind]
        try:
            parsed = _parse(source)
        except SessionReadError as exc:
            doc.error = str(exc)
            continue
        chosen = select(source.kind, parsed, Where(source.rel, source.path, root))
        doc.scope, doc.left_out = chosen.scope, chosen.left_out
        role = "agent" if kind.author == AGENT else "user"
        known = ledger.imported(source.id)
        packer = Chunker(budget)
        pieces: dict[int, Piece] = {}

        def emit(chunk: Chunk | None) -> None:
            if chunk is not None:
                out.work.append(Work(source, kind.title, doc.scope, role, chunk,  # noqa: B023
                                     tuple(pieces[e.start] for e in chunk.entries)))  # noqa: B023

        for block in chosen.blocks:
            clean, count = redact(block.text)
            fp = fingerprint(source.kind, doc.scope, clean)
            if fp in known:
                doc.imported += 1
                emit(packer.close())
                continue
            piece = Piece(block.start, block.end, fp, clean, block.trail)
            doc.new.append(piece)
            pieces[piece.start] = piece
            part = Part(HUMAN, clean, estimate_tokens(clean))
            emit(packer.add(Prepared(piece.start, piece.end, _header(piece), (part,), count, role)))
        emit(packer.close())
    return out


def _parse(source: Found) -> Parsed:
    return parse(read_text(source.path))
