"""Code anchors: the code a record depends on, checked against the repository when the record is used.

A record may name the code it is about in its frontmatter:

    anchors:
      - src/jobs/runner.py              # a path, relative to the repository root
      - path: src/jobs/runner.py        # or a path and a symbol that must appear in it
        symbol: run_pending

When a record is used (`memcli context`, `memcli search`, the MCP tools, the Linter at commit time,
`gc-report`), each anchor is checked: a path that no longer exists is reported with where git's
rename detection says it went, a symbol that no longer appears in its file with the files that now
hold it (`git grep`). Only the anchors of the records being shown are checked, files are read once
per process, and git is asked only when something is missing, so a check costs a stat and a read.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

FIELD = "anchors"
_MAX_READ = 4 * 1024 * 1024  # a symbol in a larger file is not looked for (reported as unchecked)


@dataclass(frozen=True)
class Anchor:
    path: str
    symbol: str | None = None

    def __str__(self) -> str:
        return self.path + (f" ({self.symbol})" if self.symbol else "")


@dataclass(frozen=True)
class AnchorIssue:
    anchor: Anchor
    status: str  # "renamed" | "gone" | "symbol-missing"
    message: str
    new_path: str | None = None
    holders: tuple[str, ...] = ()  # files that hold a missing symbol now

    def to_json(self) -> dict[str, Any]:
        return {"path": self.anchor.path, "symbol": self.anchor.symbol, "status": self.status,
                "message": self.message, "new_path": self.new_path, "holders": list(self.holders)}


def path_problem(path: str) -> str | None:
    """Why `path` cannot be an anchor (outside the repository), or None."""
    if not path.strip():
        return "an empty path"
    if path.startswith(("/", "~", "\\")) or re.match(r"^[A-Za-z]:[\\/]", path):
        return f"{path!r} is absolute; anchors are paths inside the repository, relative to its root"
    if any(part == ".." for part in re.split(r"[\\/]", path)):
        return f"{path!r} leaves the repository ('..'); anchors name files inside it"
    if "://" in path:
        return f"{path!r} is a URL; anchors name files of this repository"
    return None


def anchors_of(meta: dict[str, Any] | None) -> list[Anchor]:
    """The well-formed anchors of a record's frontmatter (malformed ones are the Linter's business)."""
    raw = (meta or {}).get(FIELD)
    out = []
    for item in raw if isinstance(raw, list) else []:
        if isinstance(item, str):
            path, symbol = item, None
        elif isinstance(item, dict) and isinstance(item.get("path"), str):
            path = item["path"]
            symbol = item.get("symbol") if isinstance(item.get("symbol"), str) and item["symbol"] else None
        else:
            continue
        path = path.strip().removeprefix("./")
        if path_problem(path) is None:
            out.append(Anchor(path, symbol.strip() if symbol else None))
    return out


class AnchorChecker:
    """Checks anchors against the working tree of the repository holding a workspace.

    One checker per command: it remembers each file it read and asks git at most once for the
    rename history, and only when some anchored path is missing.
    """

    def __init__(self, workspace_root: Path) -> None:
        self.workspace_root = workspace_root
        self._top: Path | None | bool = False  # False: not looked up yet
        self._texts: dict[Path, str | None] = {}
        self._history: Any = None

    @property
    def top(self) -> Path | None:
        from memcli.gc.drift import git_text  # lazy: the record models import this module

        if self._top is False:
            out = git_text(self.workspace_root, "rev-parse", "--show-toplevel")
            self._top = Path(out.strip()) if out else None
        return self._top  # type: ignore[return-value]

    def _bases(self) -> list[Path]:
        """Where a relative anchor path is read from: the repository root, then the workspace."""
        bases = [self.top] if self.top is not None else []
        if self.workspace_root not in bases:
            bases.append(self.workspace_root)
        return bases

    def _find(self, path: str) -> Path | None:
        for base in self._bases():
            candidate = base / path
            if candidate.is_file():
                return candidate
        return None

    def _text(self, file: Path) -> str | None:
        if file not in self._texts:
            try:
                self._texts[file] = (file.read_bytes()[:_MAX_READ]).decode("utf-8", "replace")
            except OSError:
                self._texts[file] = None
        return self._texts[file]

    def check(self, anchors: Iterable[Anchor]) -> list[AnchorIssue]:
        return self.check_many([list(anchors)])[0]

    def check_many(self, groups: list[list[Anchor]]) -> list[list[AnchorIssue]]:
        """`check` for many records at once: the files that now hold missing symbols are found with
        one `git grep` for all of them, not one per symbol."""
        out: list[list[AnchorIssue]] = [[] for _ in groups]
        moved: list[tuple[int, Anchor]] = []
        for n, anchors in enumerate(groups):
            for anchor in anchors:
                found = self._find(anchor.path)
                if found is None:
                    out[n].append(self._missing(anchor))
                elif anchor.symbol is not None:
                    text = self._text(found)
                    if text is not None and not _has_symbol(text, anchor.symbol):
                        moved.append((n, anchor))
        holders = self._holders({a.symbol for _, a in moved if a.symbol}) if moved else {}
        for n, anchor in moved:
            now = holders.get(anchor.symbol or "", [])
            where = f"; now in {', '.join(now[:3])}" if now else ""
            out[n].append(AnchorIssue(anchor, "symbol-missing",
                                      f"`{anchor.symbol}` no longer appears in {anchor.path}{where}",
                                      holders=tuple(now)))
        return out

    def _missing(self, anchor: Anchor) -> AnchorIssue:
        from memcli.gc.drift import GitUnavailable, path_verdict, rename_history

        top = self.top
        if top is not None and self._history is None:
            try:
                self._history = rename_history(top)
            except GitUnavailable:
                self._history = None
        verdict = None
        if top is not None and self._history is not None:
            prefix = self.workspace_root.resolve().relative_to(top.resolve()).as_posix()
            forms = [anchor.path] + ([f"{prefix}/{anchor.path}"] if prefix != "." else [])
            tracked = _OnDisk(top)
            for form in forms:
                verdict = path_verdict(form, tracked, self._history)
                if verdict is not None:
                    break
        if verdict is not None and verdict["status"] == "renamed":
            new = verdict["new_path"]
            return AnchorIssue(anchor, "renamed", f"{anchor.path} was renamed to {new} "
                               f"(commit {verdict['commit'][:7]}); update the anchor", new_path=new)
        if verdict is not None and verdict.get("commit"):
            return AnchorIssue(anchor, "gone", f"{anchor.path} was deleted (commit {verdict['commit'][:7]}); "
                               "update or drop the anchor")
        return AnchorIssue(anchor, "gone", f"{anchor.path} does not exist in the repository; "
                           "fix or drop the anchor")

    def _holders(self, symbols: set[str]) -> dict[str, list[str]]:
        """symbol → the repository files that hold it as a whole word (the memory itself left out:
        it names the symbol, only code can hold it)."""
        from memcli.gc.drift import git_text

        if self.top is None or not symbols:
            return {}
        prefix = self.workspace_root.resolve().relative_to(self.top.resolve()).as_posix()
        prefix = "" if prefix == "." else prefix + "/"
        patterns = [arg for symbol in sorted(symbols) for arg in ("-e", symbol)]
        out = git_text(self.top, "grep", "-o", "-w", "-F", "-I", "--full-name", *patterns, "--", ".",
                       f":(exclude){prefix}memory", f":(exclude){prefix}knowledge")
        found: dict[str, set[str]] = {}
        for line in (out or "").splitlines():
            path, _, match = line.rpartition(":")
            if path and match in symbols:
                found.setdefault(match, set()).add(path)
        return {symbol: sorted(paths) for symbol, paths in found.items()}


class _OnDisk:
    """The files of the working tree, as the `tracked` set rename verdicts look names up in."""

    def __init__(self, top: Path) -> None:
        self.top = top

    def __contains__(self, path: object) -> bool:
        return isinstance(path, str) and (self.top / path).is_file()


def _has_symbol(text: str, symbol: str) -> bool:
    if symbol not in text:
        return False
    return re.search(rf"(?<![\w]){re.escape(symbol)}(?![\w])", text) is not None


def marks(issues: Iterable[AnchorIssue]) -> str:
    """One short mark for a listing: `⚠ anchor: src/a.py renamed to src/b.py; …`."""
    return "⚠ stale anchor: " + "; ".join(i.message for i in issues)


def stale_anchors(workspace_root: Path, paths: Iterable[str],
                  checker: AnchorChecker | None = None) -> dict[str, list[AnchorIssue]]:
    """For the records about to be shown (workspace-relative paths): those whose anchors no longer
    hold, with why. A record that names no anchors costs one read of its bytes."""
    from memcli.records.parse import parse_record
    from memcli.workspace import locate

    named: list[tuple[str, list[Anchor]]] = []
    for rel in paths:
        try:
            data = (workspace_root / rel).read_bytes()
        except OSError:
            continue
        if b"anchors" not in data:
            continue
        loc = locate(rel)
        anchors = anchors_of(parse_record(rel, data, loc.kind, loc.slug, validate=False).meta)
        if anchors:
            named.append((rel, anchors))
    checker = checker or AnchorChecker(workspace_root)
    issues = checker.check_many([anchors for _, anchors in named])
    return {rel: found for (rel, _), found in zip(named, issues, strict=True) if found}
