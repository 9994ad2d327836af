"""The trust gate on the resident context: what memcli wrote into the summary or a knowledge
description from anything but the user's own words, aimed at agents, is not shown to them
(memcli.provenance.agent_directives; the Linter's agent-directive and invisible-text say the same).
The check reads only what is shown; git is asked only about a flagged line, so a clean memory
costs one pass of a few regexes at session start."""

from __future__ import annotations

from typing import TYPE_CHECKING

from memcli.provenance import agent_directives
from memcli.workspace import SUMMARY_PATH

if TYPE_CHECKING:
    from memcli.context.read import Entry
    from memcli.workspace import Workspace

WITHHELD_LINE = "[memcli: a line withheld: it holds text aimed at agents no person said; see `memcli lint`]\n"


def _held_lines(ws: Workspace, rel: str, text: str) -> set[int]:
    """The file lines of `rel` the gate holds back: an invisible character, or text aimed at agents
    that memcli wrote and no one vouched for."""
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
    try:
        return (ws.root / rel).read_bytes().decode("utf-8", "replace")
    except OSError:
        return ""


def gated(ws: Workspace, shown: list[Entry], lines: list[str],
          skipped: list[str]) -> tuple[list[Entry], list[str], list[str]]:
    """`shown` and the summary `lines` less what the gate holds back (the entries' paths added to
    `skipped`)."""
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
    return kept, lines, skipped

