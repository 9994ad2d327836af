"""The resident context's inputs read from the record store (memcli.store) instead of the files.

At every agent session start `memcli context` needs, of every knowledge record, whether it is
valid, its kind, its one-line description, `model_invocation` and `updated_at`, and the summary's
body: the store keeps exactly those from one parse, so an unchanged workspace costs one stat per
file and one query. What the store does not keep — a link or a folder where a record file would
be — is read from the disk as before, so the result is the one the files give (tests compare both).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from memcli.workspace import KIND_DIRS, SUMMARY_PATH, Kind, Workspace

if TYPE_CHECKING:
    from memcli.context import Resident
    from memcli.store import RecordStore


def read_resident(workspace: Workspace,
                  store: RecordStore) -> Resident | None:
    """(entries with their anchor marks, skipped paths, summary lines, summary path), or None when
    a record folder is a link (the Linter's walk does not follow it: the caller reads the files)."""
    from memcli.context import order_entries, summary_part, with_anchor_marks

    store.refresh()
    if store.linked:
        return None
    rows = [(slug, path, (kind, entry, invoked, updated) if valid else None)
            for slug, path, valid, kind, entry, invoked, updated in store.knowledge()]
    odd = [p for p in store.odd if p == SUMMARY_PATH or p.startswith(KIND_DIRS[Kind.KNOWLEDGE] + "/")]
    snap = None
    if odd:  # links and folders named like records: read as the Linter reads them
        from memcli.context import resident_rows
        from memcli.lint.snapshot import Snapshot

        snap = Snapshot(workspace, files=odd)
        rows += resident_rows(snap)
    shown, skipped = order_entries(rows)
    anchors = store.anchors(e.path for e in shown)
    if snap is not None:
        from memcli.context import snapshot_anchors

        anchors.update(snapshot_anchors(snap, [e.path for e in shown if snap.exists(e.path)]))
    shown = with_anchor_marks(workspace.root, shown, anchors)
    if snap is not None and snap.exists(SUMMARY_PATH):
        rec = snap.record(SUMMARY_PATH)
        summary = (rec.model is not None, rec.body)
    else:
        summary = store.summary()
    lines, summary_path, skipped = summary_part(summary, skipped)
    return shown, skipped, lines, summary_path
