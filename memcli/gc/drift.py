"""Code drift: records that name a repository path git no longer has, with the new name when git
history shows a rename.

A path counts only if git once tracked it (so runtime files like `data/app.db`, URLs, module names
and typos are never reported: the filter is "was in the repository, is not any more"). Paths are
taken from backticks (`` `src/app.py` ``, `` `README.md` ``) and from path-like words with a folder
and an extension (`src/foo/bar.py`) anywhere in the record; `:12` / `#L12` suffixes are dropped.
A path is read relative to the repository root, or to the workspace folder when it sits below it.
Git is asked twice (memcli.git), and its history read (memcli.git.history) only when some named
path is missing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from pathlib import Path

from memcli import git
from memcli.gc.model import Candidate
from memcli.git.history import path_verdict, rename_history
from memcli.records.parse import ParsedRecord
from memcli.values import frozen

_TICK = re.compile(r"`([^`\n]+)`")
_BARE = re.compile(r"(?<![\w/.`:@~$-])((?:[\w.-]+/)+[\w.-]*\w\.[A-Za-z0-9]{1,10})(?![\w/])")
_SUFFIX = re.compile(r"(?::\d+(?:[:-]\d+)?|#L\d+(?:-L?\d+)?)$")
_PATHLIKE = re.compile(r"^[\w.-]+(?:/[\w.-]+)*$")


@frozen
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


def _output(cwd: Path, *args: str) -> bytes:
    try:
        return git.output(cwd, *args)
    except git.GitFailed as exc:
        raise GitUnavailable(exc.reason) from None


def drift_candidates(root: Path, records: Iterable[ParsedRecord]) -> list[Candidate]:
    """One candidate per (record, gone path). Raises GitUnavailable outside a git repository."""
    return drift_from_mentions(root, ((rec.path, mentions(rec.text)) for rec in records))


def drift_from_mentions(root: Path, named: Iterable[tuple[str, Sequence[Mention]]]) -> list[Candidate]:
    """`drift_candidates` over (record path, its `mentions`) found earlier."""
    top = Path(_output(root, "rev-parse", "--show-toplevel").decode().strip())
    prefix = root.resolve().relative_to(top.resolve()).as_posix()
    prefix = "" if prefix == "." else prefix + "/"
    tracked = set(_output(top, "ls-files", "-z").decode("utf-8", "surrogateescape").split("\x00"))
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
