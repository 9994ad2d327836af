"""Aider's transcript: `.aider.chat.history.md` in the repository, Markdown, appended across sessions.

`# aider chat started at YYYY-MM-DD HH:MM:SS` opens a session; the file has no session ids, so a
session's id is `<file name without .md and leading dots>@<line of its header>` (0-based), e.g.
`aider.chat.history@1622`; text before the first header (a file that begins mid-session) is
`<stem>@0`. Entry `index` is the line number in the FILE (not in the session) of the entry's first
line, `end` its last line, so a Source names lines of the file as for the JSONL agents.
Entries are runs of lines: `#### ` lines → user; `> ` lines → tool (aider's own output, injected);
other lines → assistant (edit blocks included). Blank lines join the run they sit in, except that
a blank line ends a user input (a multi-line input is consecutive `####` lines). aider's own
"# Fix any errors below" lint/test messages are user entries flagged injected. Only the
header has a time (local time of the machine that wrote it); entries carry none.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from memcli.agents.parts import Claim, Reader
from memcli.transcript.base import MAX_LINE, open_binary, raw_lines
from memcli.transcript.model import Entry, ReadStats, Role, SessionInfo

NAME = "aider"  # as the declaration (__init__) names it
HEADER = "# aider chat started at "
AUTO_PROMPTS = ("# Fix any errors below, if possible.",)
_HEADER_LINE = re.compile(rb"(?:^|\n)# aider chat started at \d{4}-\d\d-\d\d")


def looks_like(head: bytes) -> bool:
    """A session header at the start of a line (not a mention of one, as in a README)."""
    return _HEADER_LINE.search(head) is not None


def has_turns(head: bytes) -> bool:
    """Markdown with aider's user-input lines: a history cut before its first header."""
    return head.startswith(b"#### ") or b"\n#### " in head


def claim_file(path: Path, head: bytes) -> Claim | None:
    return Claim(None) if looks_like(head) or (path.suffix == ".md" and has_turns(head)) else None


def stem_of(path: Path) -> str:
    name = path.name[:-3] if path.name.endswith(".md") else path.name
    return name.lstrip(".") or "aider"


def _header_time(line: str) -> dt.datetime | None:
    try:
        return dt.datetime.strptime(line[len(HEADER):].strip(), "%Y-%m-%d %H:%M:%S").astimezone()
    except ValueError:
        return None


def describe(path: Path, head: Any = None) -> list[SessionInfo]:
    """One SessionInfo per header; byte offsets let a session be read without the ones before it."""
    stem, size = stem_of(path), path.stat().st_size
    found: list[tuple[int, int, dt.datetime | None]] = []  # (line, byte offset, start time)
    lead_content = False
    with open_binary(path) as fh:
        index = 0
        while True:
            offset = fh.tell()
            raw = fh.readline(MAX_LINE)
            if not raw:
                break
            if raw.startswith(HEADER.encode()):
                found.append((index, offset, _header_time(raw.decode("utf-8", "replace"))))
            elif not found and raw.strip() and not raw.startswith(b"-*-"):
                lead_content = True
            if raw.endswith(b"\n") or len(raw) < MAX_LINE:
                index += 1
    if lead_content or not found:
        found.insert(0, (0, 0, None))
    mtime = dt.datetime.fromtimestamp(path.stat().st_mtime, dt.UTC)
    infos = []
    for n, (line, start, when) in enumerate(found):
        stop = found[n + 1][0] if n + 1 < len(found) else None
        last = when if stop is not None else mtime  # the last session was written until the file's mtime
        infos.append(SessionInfo(NAME, f"{stem}@{line}", path, first_time=when, last_time=last,
                                 size=(found[n + 1][1] if stop is not None else size) - start,
                                 extra={"start": line, "stop": stop, "offset": start}))
    return infos


def _kind(line: str) -> Role | None:
    if line.startswith("#### ") or line.rstrip() == "####":
        return "user"
    if line.startswith("> ") or line.rstrip() == ">":  # not `>>>>>>> REPLACE`
        return "tool"
    if not line.strip():
        return None
    return "assistant"


def _strip(kind: Role, line: str) -> str:
    if kind == "user":
        return line[4:].removeprefix(" ").rstrip()
    if kind == "tool":
        return line[1:].removeprefix(" ").rstrip()
    return line.rstrip()


def entries(info: SessionInfo, stats: ReadStats) -> Iterator[Entry]:
    start, stop = info.extra.get("start", 0), info.extra.get("stop")
    run_kind: Role | None = None
    run: list[str] = []
    first = last = 0
    blanks: list[str] = []
    in_fence = False

    def flush() -> Entry:
        text = "\n".join(run)
        # aider itself sends lint and test failures as a user message ("/lint", auto-lint, "/test")
        injected = run_kind == "tool" or (run_kind == "user" and text.startswith(AUTO_PROMPTS))
        end = last if last != first else None
        return Entry(first, run_kind or "assistant", text, injected=injected, end=end)

    for offset_index, raw, _complete in raw_lines(info.path, stats, info.extra.get("offset", 0)):
        index = start + offset_index
        if stop is not None and index >= stop:
            break
        if raw is None:
            stats.skip("line-too-long")
            continue
        line = raw.decode("utf-8", "replace")
        if line.startswith(HEADER) or (index == 0 and line.startswith("-*-")):
            stats.ignored += 1
            continue
        kind = _kind(line)
        if in_fence and kind != "user":  # a reply cut off inside a fence still ends at the next input
            kind = "assistant"
        in_fence = in_fence and kind != "user"
        if kind == "assistant" and line.startswith("```"):
            in_fence = not in_fence  # inside a fenced block every line is the reply's, even `> x`
        if kind is None:
            if run_kind is not None:
                blanks.append("")
            continue
        if kind == run_kind and not (kind == "user" and blanks):  # a blank line ends one user input
            run.extend(blanks)
        else:
            if run_kind is not None:
                yield flush()
            run_kind, run, first = kind, [], index
        blanks = []
        run.append(_strip(kind, line))
        last = index
    if run_kind is not None:
        yield flush()


def lines(info: SessionInfo, lines_read: int) -> tuple[int, int]:
    """The lines of the file a session spans: from its header to the next one."""
    start, stop = info.extra.get("start", 0), info.extra.get("stop")
    return start, (stop - 1 if stop is not None else start + lines_read - 1)


READER = Reader(describe, entries, claim_file=claim_file, lines=lines)
