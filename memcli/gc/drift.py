"""Code drift: records that name a repository path git no longer has, with the new name when git
history shows a rename.

A path counts only if git once tracked it (so runtime files like `data/app.db`, URLs, module names
and typos are never reported: the filter is "was in the repository, is not any more"). Paths are
taken from backticks (`` `src/app.py` ``, `` `README.md` ``) and from path-like words with a folder
and an extension (`src/foo/bar.py`) anywhere in the record; `:12` / `#L12` suffixes are dropped.
A path is read relative to the repository root, or to the workspace folder when it sits below it.
Git is called through subprocess (two commands, and `git log` only when some named path is missing).
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Container, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from memcli.gc.model import Candidate
from memcli.records.parse import ParsedRecord

_TICK = re.compile(r"`([^`\n]+)`")
_BARE = re.compile(r"(?<![\w/.`:@~$-])((?:[\w.-]+/)+[\w.-]*\w\.[A-Za-z0-9]{1,10})(?![\w/])")
_SUFFIX = re.compile(r"(?::\d+(?:[:-]\d+)?|#L\d+(?:-L?\d+)?)$")
_PATHLIKE = re.compile(r"^[\w.-]+(?:/[\w.-]+)*$")
_HISTORY_ROUNDS = 50  # bound on following a chain of renames


@dataclass(frozen=True)
class Mention:
    path: str  # as written, normalised
    line: int  # 1-based line in the record file


def _clean(token: str) -> str | None:
    token = _SUFFIX.sub("", token.strip()).removeprefix("./").rstrip(".,;:")
    if not token or "://" in token or ".." in token or token.startswith(("/", "~", "-", ".")):
        return None
    if not _PATHLIKE.match(token) or not any(ch.isalpha() for ch in token):
        return None
    name = token.rsplit("/", 1)[-1]
    if "/" not in token and "." not in token:
        return None  # a bare word: `slug`, `pytest`
    if "." in name and not any(ch.isalpha() for ch in name.rsplit(".", 1)[1]):
        return None  # a version (`v1.2.3`), not a file name
    return token


def mentions(text: str) -> list[Mention]:
    """Path-like mentions in a record's text, first occurrence of each, in order."""
    seen: dict[str, int] = {}
    for pattern in (_TICK, _BARE):
        for match in pattern.finditer(text):
            path = _clean(match.group(1))
            if path and path not in seen:
                seen[path] = text.count("\n", 0, match.start()) + 1
    return [Mention(p, line) for p, line in sorted(seen.items(), key=lambda kv: (kv[1], kv[0]))]


class GitUnavailable(Exception):
    """Not a git repository, or git is not installed: code drift is skipped with this note."""


def git_output(cwd: Path, *args: str) -> bytes:
    try:
        done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, check=False)
    except FileNotFoundError:
        raise GitUnavailable("git is not installed") from None
    if done.returncode != 0:
        lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GitUnavailable(lines[-1] if lines else f"git {args[0]} failed")
    return done.stdout


def git_text(cwd: Path, *args: str) -> str | None:
    """`git_output` as text, or None where git cannot answer (no repository, no commit, no git)."""
    try:
        return git_output(cwd, *args).decode("utf-8", "surrogateescape")
    except GitUnavailable:
        return None


@dataclass(frozen=True)
class History:
    renamed_to: dict[str, tuple[str, str, str]]  # old path → (new path, commit, date)
    deleted: dict[str, tuple[str, str]]  # path → (commit, date) of its last deletion
    ever: frozenset[str]


def rename_history(top: Path) -> History:
    try:
        raw = git_output(top, "log", "-M", "--name-status", "-z", "--format=%x01%H%x00%cI", "HEAD")
    except GitUnavailable:
        return History({}, {}, frozenset())  # no commit yet
    renamed: dict[str, tuple[str, str, str]] = {}
    deleted: dict[str, tuple[str, str]] = {}
    ever: set[str] = set()
    for chunk in reversed(raw.decode("utf-8", "surrogateescape").split("\x01")[1:]):  # oldest first
        fields = chunk.split("\x00")
        sha, date, rest = fields[0], fields[1], [f.strip("\n") for f in fields[2:]]
        i = 0
        while i < len(rest):
            status = rest[i]
            if not status:
                i += 1
                continue
            if status[0] in "RC":
                old, new = rest[i + 1], rest[i + 2]
                ever.update((old, new))
                if status[0] == "R":
                    renamed[old] = (new, sha, date)
                renamed.pop(new, None)
                deleted.pop(new, None)
                i += 3
                continue
            path = rest[i + 1]
            ever.add(path)
            if status[0] == "D":
                deleted[path] = (sha, date)
            elif status[0] == "A":
                renamed.pop(path, None)
                deleted.pop(path, None)
            i += 2
    return History(renamed, deleted, frozenset(ever))


def path_verdict(path: str, tracked: Container[str], history: History) -> dict[str, str] | None:
    if path not in history.ever:
        return None
    current, via = path, None
    for _ in range(_HISTORY_ROUNDS):
        step = history.renamed_to.get(current)
        if step is None:
            break
        current, via = step[0], step
        if current in tracked:
            return {"status": "renamed", "new_path": current, "commit": via[1], "date": via[2]}
    gone = history.deleted.get(current)
    evidence = {"status": "deleted"}
    if gone:
        evidence |= {"commit": gone[0], "date": gone[1]}
    if current != path:
        evidence["last_path"] = current
    return evidence


def drift_candidates(root: Path, records: Iterable[ParsedRecord]) -> list[Candidate]:
    """One candidate per (record, gone path). Raises GitUnavailable outside a git repository."""
    return drift_from_mentions(root, ((rec.path, mentions(rec.text)) for rec in records))


def drift_from_mentions(root: Path, named: Iterable[tuple[str, Sequence[Mention]]]) -> list[Candidate]:
    """`drift_candidates` over (record path, its `mentions`) found earlier."""
    top = Path(git_output(root, "rev-parse", "--show-toplevel").decode().strip())
    prefix = root.resolve().relative_to(top.resolve()).as_posix()
    prefix = "" if prefix == "." else prefix + "/"
    tracked = set(git_output(top, "ls-files", "-z").decode("utf-8", "surrogateescape").split("\x00"))
    missing: list[tuple[str, Mention, list[str]]] = []
    for path, found in named:
        for mention in found:
            forms = [mention.path] + ([prefix + mention.path] if prefix else [])
            if not any(form in tracked for form in forms):
                missing.append((path, mention, forms))
    if not missing:
        return []
    history = rename_history(top)
    out = []
    for path, mention, forms in missing:
        for form in forms:
            verdict = path_verdict(form, tracked, history)
            if verdict is None:
                continue
            short = verdict.get("commit", "")[:7]
            if verdict["status"] == "renamed":
                reason = (f"names `{mention.path}`, renamed to `{verdict['new_path']}` in {short}; "
                          "update the path")
            else:
                where = f" in {short}" if short else ""
                reason = (f"names `{mention.path}`, deleted from the repository{where}; "
                          "update or drop the mention")
            out.append(Candidate("code-drift", (path,), reason,
                                 {"path": mention.path, "line": mention.line, **verdict}))
            break
    return out
