"""`memcli merge-driver %O %A %B %P`: what git runs for a record both branches changed.

git hands over three temporary files (ancestor, ours, theirs) and the path; the driver writes the
result over "ours" and exits 0 for a clean merge, 1 for a conflict (git then stops as usual, with
the file holding readable conflict markers). Nothing is ever lost: a version the driver cannot
merge field by field is merged as text by `git merge-file`, and reported as a conflict even when
that text merge is clean, so a person looks at it; a side that deleted the file leaves the other
side's text in place, in conflict.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

from memcli import git
from memcli.merge.check import problems
from memcli.merge.fields import MARKER, merge_body, merge_fields
from memcli.merge.side import Side, Unreadable, read_side

EXIT_CLEAN, EXIT_CONFLICT = 0, 1


@dataclass
class Outcome:
    data: bytes
    why: list[str] = field(default_factory=list)  # empty: a clean merge

    @property
    def clean(self) -> bool:
        return not self.why


def _encode(text: str, style: Side) -> bytes:
    if style.crlf:
        text = text.replace("\n", "\r\n")
    return (b"\xef\xbb\xbf" if style.bom else b"") + text.encode("utf-8")


def _text_merge(base: bytes, ours: bytes, theirs: bytes, why: str) -> Outcome:
    """git's own line merge of the raw files: markers where the lines conflict, a conflict always."""
    done = git.merge_file(ours, base, theirs)
    merged = done.stdout if 0 <= done.returncode <= 127 and done.stdout else ours
    return Outcome(merged, [why + "; merged as plain text, check the result"])


def _whole_file_conflict(ours: str, theirs: str, style: Side, why: list[str]) -> Outcome:
    def ended(text: str) -> str:
        return text if text.endswith("\n") or not text else text + "\n"

    text = f"{'<' * MARKER} ours\n{ended(ours)}{'=' * MARKER}\n{ended(theirs)}{'>' * MARKER} theirs\n"
    return Outcome(_encode(text, style), why)


def _assemble(front: list[str], body: str) -> str:
    return "\n".join(["---", *front, "---"]) + "\n" + body


def merge(base: bytes, ours: bytes, theirs: bytes, path: str) -> Outcome:
    """The merged content of record `path` and, when it is a conflict, why."""
    try:
        o = read_side(base)
    except Unreadable:
        o = Side(present=False)  # an unreadable ancestor: every difference is a change of both sides
    try:
        a, b = read_side(ours), read_side(theirs)
    except Unreadable as exc:
        return _text_merge(base, ours, theirs, f"{path}: one side does not parse ({exc})")
    if not (a.present and b.present):
        if not (a.present or b.present):
            return Outcome(b"")
        gone = "ours" if not a.present else "theirs"
        return Outcome(ours or theirs, [f"{path}: {gone} deleted the file, the other side changed it; "
                                        "its text is kept: `git rm` or `git add` it"])
    fields = merge_fields(o, a, b)
    body, hunks = merge_body(o.body if o.present else "", a.body, b.body)
    text = _assemble(fields.lines, body)
    why = []
    if fields.conflicts:
        why.append(f"{path}: both sides changed {', '.join(fields.conflicts)} differently")
    if hunks:
        why.append(f"{path}: both sides changed the same lines of the body ({hunks} conflicts)")
    if not why:
        found = problems(text, path, (a.text, b.text))
        if found:
            return _whole_file_conflict(
                a.text, b.text, a, [f"{path}: the merged record would not lint clean: {'; '.join(found)}"]
            )
    return Outcome(_encode(text, a), why)


def run(base: Path, ours: Path, theirs: Path, path: str) -> int:
    """Merge the files git named, write the result over `ours`; 0 clean, 1 conflict."""

    outcome = merge(base.read_bytes(), ours.read_bytes(), theirs.read_bytes(), path)
    # `ours` is git's own temporary file: replaced whole (git never reads half a result), but not
    # fsync'd — git reads it back at once, and a crash here is a failed driver, i.e. a conflict
    tmp = ours.with_name(ours.name + ".memcli-tmp")
    tmp.write_bytes(outcome.data)
    os.replace(tmp, ours)
    for line in outcome.why:
        print(f"memcli merge-driver: {line}", file=sys.stderr)
    return EXIT_CLEAN if outcome.clean else EXIT_CONFLICT


def main(argv: list[str]) -> int:
    """Entry without Typer (git runs this once per conflicting file; start-up time matters)."""
    if len(argv) != 4:
        print("usage: memcli merge-driver BASE OURS THEIRS PATH  (git passes %O %A %B %P)", file=sys.stderr)
        return 2
    try:
        return run(Path(argv[0]), Path(argv[1]), Path(argv[2]), argv[3])
    except (OSError, git.GitFailed) as exc:  # an unreadable side, no git: a failed driver is a conflict
        print(f"Error: memcli merge-driver: {exc}", file=sys.stderr)
        return 2
