"""The user's own words in each session, cut into statements.

Only prompts the user typed count: `role == "user"`, not `injected` (tool results, injected
context, slash-command expansions, subagent prompts), not `sidechain` (memcli.sessions). A prompt
is cut into sentences; fenced code blocks and quoted lines (`> …`) are pasted material, not the
user speaking, and are left out. Sessions are read with the library's readers (`discover`,
`read_entries`), the same files `memcli sessions` lists.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable
from pathlib import Path

from memcli.eval.directive import clean, kind_of
from memcli.eval.features import Features, features
from memcli.sessions import SessionReadError, discover, read_entries
from memcli.values import frozen

MAX_PROMPT = 65_536  # kept per prompt: what people type, bounded on a pasted log
MAX_STATEMENT = 400
_FENCED = re.compile(r"```.*?(?:```|\Z)", re.DOTALL)
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=\S)|(?<=[。！？])|\n+")
_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")


@frozen
class Prompt:
    start: int  # the entry's line span in its file: what a Source points to
    end: int
    time: dt.datetime | None
    text: str


@frozen
class Session:
    session_id: str
    agent: str
    path: str
    start: dt.datetime | None
    prompts: tuple[Prompt, ...]


@frozen
class Statement:
    """One directive sentence of one prompt."""

    session: int  # index in the list of sessions
    prompt: int  # index in that session's prompts
    text: str
    kind: str
    features: Features


def sentences(text: str) -> list[str]:
    """The sentences a prompt says, pasted blocks and quotes left out."""
    out: list[str] = []
    for line in _FENCED.sub("\n", text).splitlines():
        if line.lstrip().startswith(">"):
            continue
        line = _BULLET.sub("", line)
        out.extend(s.strip() for s in _SENTENCE.split(line) if s and s.strip())
    return out


def read_sessions(workspace, since: dt.datetime | None = None,
                  paths: list[Path] | None = None) -> list[Session]:
    """The sessions with at least one typed prompt, oldest first (`workspace` as `discover` takes it)."""
    explicit = bool(paths)
    out = []
    for info in discover(workspace, since=since, paths=paths or None, scan=False):
        try:
            stream = read_entries(info)
            prompts = [Prompt(*e.span, e.timestamp, e.text[:MAX_PROMPT]) for e in stream
                       if e.role == "user" and not e.injected and not e.sidechain and e.text.strip()]
        except SessionReadError:
            if explicit:
                raise
            continue  # a file gone from an agent's home since discovery
        times = [t for t in (stream.stats.first_time, info.first_time) if t is not None]
        last = stream.stats.last_time or info.last_time
        if not prompts or (since is not None and last is not None and last < since):
            continue
        out.append(Session(info.session_id, info.agent, str(info.path), min(times) if times else None,
                           tuple(prompts)))
    epoch = dt.datetime.min.replace(tzinfo=dt.UTC)
    return sorted(out, key=lambda s: (s.start or epoch, s.session_id))


def directives(sessions: Iterable[Session]) -> tuple[list[Statement], int]:
    """Every directive statement about something, and how many statements were read in all."""
    found: list[Statement] = []
    total = 0
    for si, session in enumerate(sessions):
        for pi, prompt in enumerate(session.prompts):
            for sentence in sentences(prompt.text):
                total += 1
                text = clean(sentence)
                if not text or len(text) > MAX_STATEMENT:
                    continue
                kind = kind_of(text)
                if kind is None:
                    continue
                feats = features(text)
                if feats.content:
                    found.append(Statement(si, pi, text, kind, feats))
    return found, total
