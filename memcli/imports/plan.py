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

from memcli.agents.documents.discovery import Found, vendored
from memcli.agents.documents.kinds import AGENT, KINDS, Selection, Where, select
from memcli.agents.documents.ledger import Ledger, fingerprint
from memcli.agents.documents.markdown import parse
from memcli.agents.documents.reader import read_text
from memcli.extract.prepare import HUMAN, Chunk, Part, Prepared, chunk, estimate_tokens
from memcli.secrets import redact
from memcli.transcript.base import SessionReadError
from memcli.values import frozen


@frozen
class Piece:
    """One block to import: its lines, fingerprint, redacted text and the headings above it."""

    start: int
    end: int
    fp: str
    text: str
    trail: tuple[str, ...]


@frozen
class Work:
    """One chunk to send: the document, its scope, the chunk and the blocks in it."""

    source: Found
    title: str
    scope: str
    role: str  # user | agent | injected (third-party text): who said the blocks (the provenance)
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


def read_pieces(source: Found, root: Path) -> tuple[Selection, list[tuple[Piece, int]]]:
    """What a document's kind imports of it, each block redacted and fingerprinted, with the
    number of secrets redacted in it; SessionReadError when the file cannot be read."""
    chosen = select(source.kind, parse(read_text(source.path)), Where(source.rel, source.path, root))
    out = []
    for block in chosen.blocks:
        clean, count = redact(block.text)
        fp = fingerprint(source.kind, chosen.scope, clean)
        out.append((Piece(block.start, block.end, fp, clean, block.trail), count))
    return chosen, out


def plan(found: list[Found], ledger: Ledger, budget: int, root: Path) -> Plan:
    """The chunks to send for `found` (the documents of the workspace at `root`)."""
    out = Plan()
    for source in found:
        doc = Document(source)
        out.documents.append(doc)
        try:
            chosen, pieces = read_pieces(source, root)
        except SessionReadError as exc:
            doc.error = str(exc)
            continue
        doc.scope, doc.left_out = chosen.scope, chosen.left_out
        known = ledger.imported(source.id)
        runs: list[list[tuple[Piece, int]]] = [[]]
        for piece, count in pieces:
            if piece.fp in known:
                doc.imported += 1
                runs.append([])
            else:
                doc.new.append(piece)
                runs[-1].append((piece, count))
        role = _role(source, root)
        out.work += [w for run in runs if run for w in _chunked(source, doc.scope, run, budget, role)]
    return out


def _role(source: Found, root: Path) -> str:
    """Who said a document's blocks: the agent for its own memory; for a file people keep, the user,
    unless it is third-party text (a vendored folder, a git submodule): `injected`, as the
    AGENTS.md an agent's harness puts before it, which the trust rules never take as the user's."""
    if KINDS[source.kind].author == AGENT:
        return "agent"
    return "injected" if vendored(source, root) else "user"


def _chunked(source: Found, scope: str, run: list[tuple[Piece, int]], budget: int, role: str) -> list[Work]:
    """A run of neighbouring new blocks packed by extract's chunker, in order, under the budget."""
    kind = KINDS[source.kind]
    items = [Prepared(p.start, p.end, _header(p), (Part(HUMAN, p.text, estimate_tokens(p.text)),), n, role)
             for p, n in run]
    by_start = {p.start: p for p, _n in run}
    return [Work(source, kind.title, scope, role, c, tuple(by_start[e.start] for e in c.entries))
            for c in chunk(items, budget)]
