"""The trust gate on the resident context: what memcli wrote into the summary or a knowledge
description from anything but the user's own words, aimed at agents, is not shown to them
(memcli.provenance.agent_directives; the Linter's agent-directive and invisible-text say the same).
The check reads only what is shown; git is asked only about a flagged line, so a clean memory
costs one pass of a few regexes at session start."""

from __future__ import annotations

import contextlib
import hashlib
import json
from typing import TYPE_CHECKING

from memcli.recordtext import read_file
from memcli.workspace import SUMMARY_PATH

if TYPE_CHECKING:
    from memcli.context.read import Entry
    from memcli.workspace import Workspace

WITHHELD_LINE = "[memcli: a line withheld: it holds text aimed at agents no person said; see `memcli lint`]\n"


def _held_lines(ws: Workspace, rel: str, text: str) -> set[int]:
    """The file lines of `rel` the gate holds back: an invisible character, or text aimed at agents
    that memcli wrote and no one vouched for."""
    from memcli.provenance import agent_directives  # here: only a text found unclean compiles its patterns

    found = agent_directives(text)
    if not found:
        return set()
    held = {d.line for d in found if d.what == "invisible"}
    rest = [d.line for d in found if d.what != "invisible"]
    if rest:
        from memcli.git.authorship import memcli_written  # here: only a flagged record asks git

        held |= memcli_written(ws.root, rel, rest)
    return held


def _file_text(ws: Workspace, rel: str) -> str:
    data, _ = read_file(ws.root / rel)  # bounded; a FIFO put here since is not waited on
    return "" if data is None else data.decode("utf-8", "replace")


MEMO = "context-gate.json"  # digests of shown texts found clean: a warm session start runs no regex
_KEPT = 32


def _clean(ws: Workspace, text: str) -> bool:
    """Whether nothing in `text` can be a directive (may_direct), remembered per text's digest in
    the state folder: the patterns cost tens of ms over a large context, a digest a fraction of one."""
    digest = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()
    memo = ws.state_dir / MEMO
    try:
        known = json.loads(memo.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        known = []
    if isinstance(known, list) and digest in known:
        return True
    from memcli.provenance import may_direct  # here: a text known clean compiles none of its patterns

    if may_direct(text):
        return False
    with contextlib.suppress(OSError):
        from memcli.atomicio import atomic_write_text  # here: a warm session start writes nothing

        kept = [d for d in (known if isinstance(known, list) else []) if isinstance(d, str)][-(_KEPT - 1):]
        atomic_write_text(memo, json.dumps([*kept, digest]))
    return True


def gated(ws: Workspace, shown: list[Entry], lines: list[str],
          skipped: list[str]) -> tuple[list[Entry], list[str], list[str], bool]:
    """`shown` and the summary `lines` less what the gate holds back (the entries' paths added to
    `skipped`), and whether the text was clean: else what is held back depends on git's history too."""
    if _clean(ws, "\n".join([*(e.description for e in shown), *lines])):
        return shown, lines, skipped, True  # the usual case: nothing shown could direct an agent
    from memcli.provenance import agent_directives  # here: only a text found unclean compiles its patterns

    kept = []
    for entry in shown:
        if agent_directives(entry.description) and _held_lines(ws, entry.path, _file_text(ws, entry.path)):
            skipped = [*skipped, entry.path]
            continue
        kept.append(entry)
    if lines and agent_directives("".join(lines)):
        text = _file_text(ws, SUMMARY_PATH)
        file_lines = text.splitlines()
        held_at = _held_lines(ws, SUMMARY_PATH, text)
        held = {file_lines[n - 1].strip() for n in held_at if n <= len(file_lines)}
        lines = [WITHHELD_LINE if line.strip() and line.strip() in held else line for line in lines]
    return kept, lines, skipped, False

