"""What `memcli context` is made of, read from the record store or from the files.

Of every knowledge record: whether it is valid (the Linter's parse, schema and slug checks), its
kind, one-line description, `model_invocation` and `updated_at`, and the anchors it names; and the
summary's body. At every agent session start the store answers from rows kept from one parse, so an
unchanged workspace costs one stat per file and one query, and a fresh clone parses only those.
What the store does not keep — a link or a folder where a record file would be — is read from the
disk as before, so the result is the one the files give (`tests/store/test_same_output.py` compares
both).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, cast

from memcli.anchors import AnchorChecker
from memcli.records.anchors import Anchor, anchors_of
from memcli.recordtext import one_line
from memcli.slug import is_valid_slug
from memcli.store import open_store
from memcli.values import frozen
from memcli.workspace import KIND_DIRS, SUMMARY_PATH, Kind, Workspace

if TYPE_CHECKING:
    from memcli.lint.snapshot import Snapshot  # here: a warm context reads the store, not the files
    from memcli.store import RecordStore

KIND_ORDER = ("rule", "policy", "howto", "fact", "term")
RESIDENT = (KIND_DIRS[Kind.KNOWLEDGE] + "/", SUMMARY_PATH)  # the record files the context is made of


@frozen
class Entry:
    slug: str
    kind: str
    description: str
    path: str
    stale: tuple[str, ...] = ()  # why its code anchors no longer hold (memcli.anchors)

    @property
    def line(self) -> str:
        mark = f" ⚠ stale anchor: {'; '.join(self.stale)}" if self.stale else ""
        return f"- {self.slug} — {self.description}{mark}\n"


Row = tuple[str, str, "tuple[str, str, bool, dt.datetime | float] | None"]
# What the text is made of: entries with their anchor marks, skipped paths, summary lines, its path.
Resident = tuple[list[Entry], list[str], list[str], "str | None"]


def resident_rows(snapshot: Snapshot) -> list[Row]:
    """(slug, path, (kind, one-line description, model_invocation, updated_at) or None for a record
    that did not validate) of every knowledge record of `snapshot`."""
    rows: list[Row] = []
    for slug, path in snapshot.slugs[Kind.KNOWLEDGE].items():
        model = snapshot.record(path).model
        if model is None:
            rows.append((slug, path, None))
        else:
            rows.append((slug, path, (model.kind, one_line(model.description), model.model_invocation,
                                      model.updated_at)))
    return rows


def resident_entries(snapshot: Snapshot) -> tuple[list[Entry], list[str]]:
    """Every valid model-invoked knowledge entry in context order, and the broken paths skipped."""
    return order_entries(resident_rows(snapshot))


def order_entries(rows: Iterable[Row]) -> tuple[list[Entry], list[str]]:
    """`resident_entries` from `resident_rows`, however they were read (`updated_at` a datetime
    or its POSIX timestamp)."""
    entries: list[tuple[tuple[object, ...], Entry]] = []
    skipped: list[str] = []
    for slug, path, fields in rows:
        if fields is None or not is_valid_slug(slug):  # what `memcli lint` rejects is not shown
            skipped.append(path)
            continue
        kind, description, invoked, updated_at = fields
        if not invoked:  # the parser maps the old spelling `model_invokation` here
            continue
        entry = Entry(slug, kind, description, path)
        stamp = updated_at.timestamp() if isinstance(updated_at, dt.datetime) else updated_at
        entries.append(((KIND_ORDER.index(kind), -stamp, slug), entry))
    entries.sort(key=lambda pair: pair[0])
    return [e for _, e in entries], sorted(skipped)


def snapshot_anchors(snapshot: Snapshot, paths: Iterable[str]) -> dict[str, list[tuple[str, str | None]]]:
    """Path → the (path, symbol) anchors each of `paths` names, for those naming any."""

    out = {}
    for path in paths:
        meta = snapshot.record(path).meta
        anchors = anchors_of(meta) if meta and "anchors" in meta else []
        if anchors:
            out[path] = [(a.path, a.symbol) for a in anchors]
    return out


def with_anchor_marks(root: Path, entries: list[Entry],
                      anchors: dict[str, list[tuple[str, str | None]]]) -> list[Entry]:
    """Entries whose record names code that moved or went away carry why, so the agent reads the
    warning beside the claim (`anchors`: what `snapshot_anchors` gives). Records without anchors
    cost nothing."""


    named = [(n, [Anchor(path, symbol) for path, symbol in anchors[e.path]])
             for n, e in enumerate(entries) if e.path in anchors]
    if not named:
        return entries
    issues = AnchorChecker(root).check_many([found for _, found in named])
    out = list(entries)
    for (n, _), found in zip(named, issues, strict=True):
        if found:
            out[n] = replace(out[n], stale=tuple(i.message for i in found))
    return out


def summary_part(summary: tuple[bool, str] | None,
                 skipped: list[str]) -> tuple[list[str], str | None, list[str]]:
    """The summary's lines, its path and `skipped` from (valid, body) of the summary, None when
    there is none."""
    if summary is None:
        return [], None, skipped
    valid, body = summary
    if not valid:
        return [], None, sorted([*skipped, SUMMARY_PATH])
    body = body.strip("\n")
    lines = [line + "\n" for line in body.split("\n")] + ["\n"] if body.strip() else []
    return lines, SUMMARY_PATH, skipped


def from_files(workspace: Workspace, snapshot: Snapshot | None = None,
               entries: tuple[list[Entry], list[str]] | None = None) -> Resident:
    """(entries with anchor marks, skipped, summary lines, summary path), read from the files
    (`snapshot`'s, and `entries` when the caller has them already)."""
    # here: a session start answered from the store never reads files as the Linter does
    from memcli.lint.snapshot import Snapshot

    snap = snapshot or Snapshot(workspace)
    shown, skipped = entries if entries is not None else resident_entries(snap)
    shown = with_anchor_marks(snap.root, shown, snapshot_anchors(snap, [e.path for e in shown]))
    summary = None
    if snap.exists(SUMMARY_PATH):
        rec = snap.record(SUMMARY_PATH)
        summary = (rec.model is not None, rec.body)
    lines, summary_path, skipped = summary_part(summary, skipped)
    return shown, skipped, lines, summary_path


def from_store(workspace: Workspace) -> Resident | None:
    """The same from the record store (memcli.store), or None where it cannot answer (no
    writable state folder, a linked record folder)."""

    store = open_store(workspace)
    if store is None:
        return None
    with store:
        return _read_store(workspace, store)


def _read_store(workspace: Workspace, store: RecordStore) -> Resident | None:
    """(entries with their anchor marks, skipped paths, summary lines, summary path), or None when
    a record folder is a link (the Linter's walk does not follow it: the caller reads the files)."""
    # only what is shown: a fresh clone's decisions and requests wait for the first command that reads them
    store.refresh(within=RESIDENT)
    if store.linked:
        return None
    # a valid row has all four fields (store.knowledge types them for any row)
    rows = cast("list[Row]", [(slug, path, (kind, entry, invoked, updated) if valid else None)
                              for slug, path, valid, kind, entry, invoked, updated in store.knowledge()])
    odd = [p for p in store.odd if p == SUMMARY_PATH or p.startswith(KIND_DIRS[Kind.KNOWLEDGE] + "/")]
    snap = None
    if odd:  # links and folders named like records: read as the Linter reads them
        from memcli.lint.snapshot import Snapshot  # here: as in read_files

        snap = Snapshot(workspace, files=odd)
        rows += resident_rows(snap)
    shown, skipped = order_entries(rows)
    anchors = store.anchors(e.path for e in shown)
    if snap is not None:
        anchors.update(snapshot_anchors(snap, [e.path for e in shown if snap.exists(e.path)]))
    shown = with_anchor_marks(workspace.root, shown, anchors)
    if snap is not None and snap.exists(SUMMARY_PATH):
        rec = snap.record(SUMMARY_PATH)
        summary: tuple[bool, str] | None = (rec.model is not None, rec.body)
    else:
        summary = store.summary()
    lines, summary_path, skipped = summary_part(summary, skipped)
    return shown, skipped, lines, summary_path
