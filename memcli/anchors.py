"""Code anchors: the code a record depends on, checked against the repository when the record is used.

A record may name the code it is about in its frontmatter (memcli.records.anchors):

    anchors:
      - src/jobs/runner.py              # a path, relative to the repository root
      - path: src/jobs/runner.py        # or a path and a symbol that must appear in it
        symbol: run_pending

When a record is used (`memcli context`, `memcli search`, the MCP tools, the Linter at commit time,
`gc-report`), each anchor is checked: a path that no longer exists is reported with where git's
rename detection says it went, a symbol that no longer appears in its file with the files that now
hold it (`git grep`). Only the anchors of the records being shown are checked, files are read once
per process, and git is asked only when something is missing, so a check costs a stat and a read.
A symbol is looked for as a whole word with no regular expression: a file asked for a second
symbol has its words collected once, and each further symbol is a set lookup (a regex compiled
per distinct symbol cost `context` ×1.3 at 1 000 records, issue 37).

What git's history says of a missing path (renamed to, deleted in) changes only with new commits:
it is kept in the state folder under HEAD (`anchor-history.json`). A later command reads it back;
after new commits it asks git only for those (`git log old..HEAD`), and walks the whole history
only for a path it has not looked up before, or after HEAD was rewritten. `memcli context` at a
session start thus pays one `git rev-parse`, not a history walk (bench/anchors_bench.py).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memcli.records.anchors import Anchor, anchors_of
from memcli.values import frozen
from memcli.workspace import Workspace, locate

if TYPE_CHECKING:
    from memcli.git.history import History

HISTORY_CACHE = "anchor-history.json"
_MAX_READ = 4 * 1024 * 1024  # a symbol in a larger file is not looked for (reported as unchecked)
_KEEP_FACTS = 5000  # paths kept in the history cache; past that, only those of the last command


@frozen
class AnchorIssue:
    anchor: Anchor
    status: str  # "renamed" | "gone" | "symbol-missing"
    message: str
    new_path: str | None = None
    holders: tuple[str, ...] = ()  # files that hold a missing symbol now

    def to_json(self) -> dict[str, Any]:
        return {"path": self.anchor.path, "symbol": self.anchor.symbol, "status": self.status,
                "message": self.message, "new_path": self.new_path, "holders": list(self.holders)}


class AnchorChecker:
    """Checks anchors against the working tree of the repository holding a workspace.

    One checker per command: it remembers each file it read, asks git once where the repository is
    (and its HEAD), and looks missing paths up in the history cache (see the module's docstring).
    """

    def __init__(self, workspace_root: Path) -> None:
        self.workspace_root = workspace_root
        self.state_dir = Workspace(workspace_root).state_dir  # where the history cache is kept
        self._top: Path | None | bool = False  # False: not looked up yet
        self._head: str | None = None
        self._texts: dict[Path, str | None] = {}
        self._words: dict[Path, frozenset[str] | None] = {}  # None: asked once, not collected yet
        self._found: dict[str, Path | None] = {}  # anchor path → the file it names (records share code)

    @property
    def top(self) -> Path | None:
        if self._top is False:
            from memcli import git  # here: a search whose hits name no anchor never runs git

            self._top, self._head = git.top_and_head(self.workspace_root)
        return self._top  # type: ignore[return-value]

    def _bases(self) -> list[Path]:
        """Where a relative anchor path is read from: the repository root, then the workspace."""
        bases = [self.top] if self.top is not None else []
        if self.workspace_root not in bases:
            bases.append(self.workspace_root)
        return bases

    def places(self, path: str) -> list[Path]:
        """Where an anchor's relative `path` is looked for, in order (the first file found holds it)."""
        return [base / path for base in self._bases()]

    def _find(self, path: str) -> Path | None:
        if path not in self._found:
            self._found[path] = next((place for place in self.places(path) if place.is_file()), None)
        return self._found[path]

    def _text(self, file: Path) -> str | None:
        if file not in self._texts:
            try:
                self._texts[file] = (file.read_bytes()[:_MAX_READ]).decode("utf-8", "replace")
            except OSError:
                self._texts[file] = None
        return self._texts[file]

    def _holds(self, file: Path, symbol: str) -> bool | None:
        """Whether `symbol` appears in `file` as a whole word; None when the file cannot be read."""
        text = self._text(file)
        if text is None:
            return None
        if not is_word(symbol):
            return has_symbol(text, symbol)
        if file not in self._words:
            self._words[file] = None  # one symbol: a search costs less than collecting the words
            return has_symbol(text, symbol)
        words = self._words[file]
        if words is None:
            words = self._words[file] = words_of(text)
        return symbol in words

    def check(self, anchors: Iterable[Anchor]) -> list[AnchorIssue]:
        return self.check_many([list(anchors)])[0]

    def check_many(self, groups: list[list[Anchor]]) -> list[list[AnchorIssue]]:
        """`check` for many records at once: missing paths are looked up in git's history together,
        and the files that now hold missing symbols are found with one `git grep` for all of them."""
        out: list[list[AnchorIssue]] = [[] for _ in groups]
        missing: list[tuple[int, Anchor]] = []
        moved: list[tuple[int, Anchor]] = []
        for n, anchors in enumerate(groups):
            for anchor in anchors:
                found = self._find(anchor.path)
                if found is None:
                    missing.append((n, anchor))
                elif anchor.symbol is not None and self._holds(found, anchor.symbol) is False:
                    moved.append((n, anchor))
        facts = self._facts([form for _, a in missing for form in self._forms(a.path)]) if missing else {}
        for n, anchor in missing:
            out[n].append(self._missing(anchor, facts))
        holders = self._holders({a.symbol for _, a in moved if a.symbol}) if moved else {}
        for n, anchor in moved:
            now = holders.get(anchor.symbol or "", [])
            where = f"; now in {', '.join(now[:3])}" if now else ""
            out[n].append(AnchorIssue(anchor, "symbol-missing",
                                      f"`{anchor.symbol}` no longer appears in {anchor.path}{where}",
                                      holders=tuple(now)))
        return out

    def _forms(self, path: str) -> list[str]:
        """The repository paths an anchor path may mean: from the root, or from the workspace."""
        if self.top is None:
            return []
        prefix = self.workspace_root.resolve().relative_to(self.top.resolve()).as_posix()
        return [path] + ([f"{prefix}/{path}"] if prefix != "." else [])

    def _missing(self, anchor: Anchor, facts: dict[str, dict[str, Any]]) -> AnchorIssue:
        top = self.top
        verdict = None
        for form in self._forms(anchor.path):
            if form in facts and top is not None:
                verdict = _verdict(facts[form], lambda rel: (top / rel).is_file())
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

    def _facts(self, paths: list[str]) -> dict[str, dict[str, Any]]:
        """What the history at HEAD says of each path (memcli.git.history's rename history, reduced to the
        path's own rename chain), from the cache where it still holds."""
        top, head = self.top, self._head
        if top is None or head is None:
            return {}  # no repository, or no commit yet: no history
        cache = _HistoryCache(self.state_dir, top)
        known = cache.load(head)
        todo = [p for p in dict.fromkeys(paths) if p not in known]
        if todo:
            # here: only a path the cache does not know; warm commit hooks, context and search skip it
            from memcli.git.history import rename_history

            history = rename_history(top)
            known.update({p: _fact(p, history) for p in todo})
        if todo or cache.moved:
            kept = known if len(known) <= _KEEP_FACTS else {p: known[p] for p in paths}  # no anchors forever
            cache.save(head, kept)
        return known

    def _holders(self, symbols: set[str]) -> dict[str, list[str]]:
        """symbol → the repository files that hold it as a whole word (the memory itself left out:
        it names the symbol, only code can hold it)."""
        if self.top is None or not symbols:
            return {}
        prefix = self.workspace_root.resolve().relative_to(self.top.resolve()).as_posix()
        prefix = "" if prefix == "." else prefix + "/"
        patterns = [arg for symbol in sorted(symbols) for arg in ("-e", symbol)]
        from memcli import git  # here: as in `top`

        out = git.text(self.top, "grep", "-o", "-w", "-F", "-I", "--full-name", *patterns, "--", ".",
                       f":(exclude){prefix}memory", f":(exclude){prefix}knowledge")
        found: dict[str, set[str]] = {}
        for line in (out or "").splitlines():
            path, _, match = line.rpartition(":")
            if path and match in symbols:
                found.setdefault(match, set()).add(path)
        return {symbol: sorted(paths) for symbol, paths in found.items()}


def _fact(path: str, history: History) -> dict[str, Any]:
    """What `history` (memcli.git.history.History) says of `path`: ever tracked, the renames that
    followed it, and the deletion of the last name."""
    steps = history.renames_of(path)
    gone = history.deleted.get(steps[-1][0] if steps else path)
    return {"ever": path in history.ever, "steps": [list(step) for step in steps],
            "deleted": list(gone) if gone else None}


def _verdict(fact: dict[str, Any], on_disk: Any) -> dict[str, str] | None:
    """memcli.git.history.path_verdict from a path's cached fact: the first rename target still on disk,
    else the deletion; None for a path git never tracked."""
    if not fact.get("ever"):
        return None
    for new, sha, _date in fact.get("steps", []):
        if on_disk(new):
            return {"status": "renamed", "new_path": new, "commit": sha}
    deleted = fact.get("deleted")
    return {"status": "deleted", **({"commit": deleted[0]} if deleted else {})}


class _HistoryCache:
    """`<state dir>/anchor-history.json`: path facts at one HEAD of one repository. A cache: when it
    is unreadable, of another repository, or HEAD was rewritten, the facts are looked up again."""

    def __init__(self, state_dir: Path, top: Path) -> None:
        self.path = state_dir / HISTORY_CACHE
        self.top = top
        self.moved = False  # HEAD moved on since it was written (the facts were carried over)

    def load(self, head: str) -> dict[str, dict[str, Any]]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        if not isinstance(data, dict) or data.get("top") != str(self.top):
            return {}
        facts = data.get("paths")
        old = data.get("head")
        if not isinstance(facts, dict) or not isinstance(old, str):
            return {}
        if old == head:
            return facts
        self.moved = True
        return self._carried(old, head, facts)

    def _carried(self, old: str, head: str, facts: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
        """The facts still true at `head`: those of paths (and their rename targets) that no commit
        since `old` touched; none when `old` is not an ancestor of `head` (history was rewritten)."""
        from memcli import git  # here: as in `top`

        if git.text(self.top, "merge-base", "--is-ancestor", old, head) is None:
            return {}
        log = git.text(self.top, "log", "-M", "--name-status", "-z", "--format=", f"{old}..{head}")
        if log is None:
            return {}
        touched = {name.strip("\n") for name in log.split("\0")}
        return {p: f for p, f in facts.items() if isinstance(f, dict) and p not in touched
                and not any(step[0] in touched for step in f.get("steps", []))}

    def save(self, head: str, facts: dict[str, dict[str, Any]]) -> None:
        from memcli.atomicio import atomic_write_text  # here: `memcli search` writes only after a lookup

        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_text(self.path, json.dumps({"top": str(self.top), "head": head, "paths": facts}))
        except OSError:
            pass  # a read-only state folder: the next command looks the history up again


_WORDS = re.compile(r"\w+")


def is_word(symbol: str) -> bool:
    """Whether `symbol` is made of word characters only (an identifier, CJK included)."""
    return _WORDS.fullmatch(symbol) is not None


def words_of(text: str) -> frozenset[str]:
    """The maximal runs of word characters of `text`: a word-only symbol appears in `text` as a whole
    word exactly when it is one of them."""
    return frozenset(_WORDS.findall(text))


def _wordish(char: str) -> bool:
    return char.isalnum() or char == "_"  # what `\w` matches in a str pattern


def has_symbol(text: str, symbol: str) -> bool:
    r"""Whether `symbol` appears in `text` with no word character just before or after it: what
    `re.search(rf"(?<!\w){re.escape(symbol)}(?!\w)", text)` says, with no pattern to compile."""
    at = text.find(symbol)
    while at >= 0:
        end = at + len(symbol)
        if (at == 0 or not _wordish(text[at - 1])) and (end == len(text) or not _wordish(text[end])):
            return True
        at = text.find(symbol, at + 1)
    return False


def marks(issues: Iterable[AnchorIssue]) -> str:
    """One short mark for a listing: `⚠ anchor: src/a.py renamed to src/b.py; …`."""
    return "⚠ stale anchor: " + "; ".join(i.message for i in issues)


def stale_anchors(workspace_root: Path, paths: Iterable[str],
                  checker: AnchorChecker | None = None) -> dict[str, list[AnchorIssue]]:
    """For the records about to be shown (workspace-relative paths): those whose anchors no longer
    hold, with why. A record that names no anchors costs one read of its bytes."""
    # here: `memcli search` marks stale anchors without the record parser when no listed record
    # names any (tests/test_lean_start.py)
    from memcli.records.parse import parse_record

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
