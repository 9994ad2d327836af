"""The records that become skills: every knowledge record and every workflow, read and checked.

A record becomes a skill when it passes the Linter's parse, schema and slug checks and its
description fits what the agents accept (check.py); a knowledge record and a workflow with the
same slug would make two skills of one name, and the workflow (written by a person) wins. Every
record that cannot become a skill comes back with the reason, never silently dropped.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from memcli.recordtext import one_line, read_file
from memcli.skills.check import description_problem
from memcli.slug import is_valid_slug
from memcli.values import frozen
from memcli.workspace import KIND_DIRS, Kind

FOLDERS = (KIND_DIRS[Kind.KNOWLEDGE], KIND_DIRS[Kind.WORKFLOW])


@frozen
class Source:
    """A record as a skill: its name (the slug), one-line description, body and invocation."""

    slug: str
    path: str  # workspace-relative
    kind: str  # knowledge kind (howto, rule ...) or "workflow"
    description: str
    body: str
    model: bool  # the model may pick it by itself (model_invocation, a workflow's auto_invoke)
    user: bool  # the user may invoke it by name (user_invocable)
    requires: tuple[str, ...] = ()


@frozen
class Unfit:
    path: str
    why: str


def record_files(root: Path) -> list[tuple[str, bytes]]:
    """(path, bytes) of every `.md` file in knowledge/ and memory/workflow/, sorted by path."""
    out: list[tuple[str, bytes]] = []
    for folder in FOLDERS:
        try:
            names = sorted(os.listdir(root / folder))
        except OSError:
            continue
        for name in names:
            if name.endswith(".md") and not name.startswith("."):
                # bounded, and a FIFO is refused, not waited on: a folder, FIFO or link named
                # like a record is skipped (`memcli lint` reports it)
                data, _ = read_file(root / folder / name, follow=False)
                if data is not None:
                    out.append((f"{folder}/{name}", data))
    return out


def digest(files: list[tuple[str, bytes]]) -> str:
    h = hashlib.blake2b(digest_size=16)
    for path, data in files:
        h.update(path.encode() + b"\0" + hashlib.blake2b(data, digest_size=16).digest())
    return h.hexdigest()


def file_digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def _untrusted(root: Path | None, path: str, data: bytes) -> str | None:
    """Why the trust gate keeps a record from the agents (what `memcli lint` says as
    agent-directive / invisible-text), or None: an invisible character whoever wrote it, text
    aimed at agents on a line memcli wrote from anything but the user's own words."""
    from memcli.provenance import agent_directives  # here: an unchanged skills sync reads no record

    found = agent_directives(data.decode("utf-8", "replace"))
    if not found:
        return None
    hidden = [d for d in found if d.what == "invisible"]
    if hidden:
        return f"line {hidden[0].line} holds an invisible or bidi character ({hidden[0].snippet})"
    if root is None:
        return f"line {found[0].line} holds text aimed at agents"
    from memcli.git.authorship import memcli_written  # here: only a flagged record asks git

    memcli = memcli_written(root, path, [d.line for d in found])
    shown = [d for d in found if d.line in memcli]
    if not shown:
        return None  # a person wrote it
    return (f"line {shown[0].line} holds text aimed at agents that memcli wrote, not from the user's "
            f"own words ({shown[0].snippet[:60]!r}); see `memcli lint {path}`")


def read_sources(files: list[tuple[str, bytes]],
                 root: Path | None = None) -> tuple[list[Source], list[Unfit]]:
    """The records of `files` that become skills (by slug), and those that cannot, with why; a
    record the trust gate holds back is one of those (`root`: the workspace, whose git says who
    wrote a flagged line)."""
    from memcli.records.parse import parse_record  # here: an unchanged skills sync parses no record

    found: dict[str, Source] = {}
    unfit: list[Unfit] = []
    for path, data in files:
        folder, _, name = path.rpartition("/")
        kind = Kind.KNOWLEDGE if folder == KIND_DIRS[Kind.KNOWLEDGE] else Kind.WORKFLOW
        slug = name[:-3]
        rec = parse_record(path, data, kind, slug)
        if rec.model is None or not is_valid_slug(slug):
            unfit.append(Unfit(path, f"it does not pass `memcli lint {path}`"))
            continue
        held = _untrusted(root, path, data)
        if held:
            unfit.append(Unfit(path, held))
            continue
        model = rec.model
        description = one_line(model.description)
        problem = description_problem(description)
        if problem:
            unfit.append(Unfit(path, f"its description {problem}"))
            continue
        if kind is Kind.KNOWLEDGE:
            source = Source(slug, path, model.kind, description, rec.body, model.model_invocation,
                            model.user_invocable)
        else:
            source = Source(slug, path, "workflow", description, rec.body, model.auto_invoke,
                            model.user_invocable, tuple(model.requires))
        if not source.model and not source.user:
            unfit.append(Unfit(path, "neither the model nor the user may invoke it "
                                     "(model_invocation and user_invocable are both false)"))
            continue
        if slug in found:  # knowledge comes first in `files`: the workflow of the same name wins
            unfit.append(Unfit(found[slug].path, f"{path} has the same name, and a workflow wins"))
        found[slug] = source
    return sorted(found.values(), key=lambda s: s.slug), unfit
