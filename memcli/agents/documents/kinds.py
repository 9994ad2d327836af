"""The kinds of document memcli imports, and what of each file is imported (docs/import.md).

A kind says who writes its files (the user, or an agent keeping its own memory: the role its
blocks are said by, for the trust rules), and `select` picks the blocks worth importing and the
scope they apply in, from the file's own fields: a Cursor rule's `globs`, a Copilot file's
`applyTo`, a Claude Code memory's `type`, a nested AGENTS.md's folder. What is left out is said,
one line each, so `memcli import --dry-run` shows it. Where each kind lives: discovery.py.
"""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath
from typing import Any

from memcli.agents.documents.markdown import Block, Parsed
from memcli.values import frozen

USER, AGENT = "user", "agent"  # who writes the files of a kind


@frozen
class Kind:
    name: str
    title: str
    author: str  # USER or AGENT


KINDS: dict[str, Kind] = {k.name: k for k in (
    Kind("claude-memory", "Claude Code auto memory", AGENT),
    Kind("claude-md", "Claude Code CLAUDE.md and rules", USER),
    Kind("agents-md", "AGENTS.md", USER),
    Kind("gemini-md", "Gemini CLI GEMINI.md", USER),
    Kind("gemini-memory", "Gemini CLI private project memory", AGENT),
    Kind("codex-memory", "Codex memories", AGENT),
    Kind("cline-memory-bank", "Cline memory bank", AGENT),
    Kind("cursor-rules", "Cursor rules", USER),
    Kind("windsurf-rules", "Windsurf rules", USER),
    Kind("copilot-instructions", "GitHub Copilot instructions", USER),
    Kind("markdown", "a Markdown file", USER),  # a file given by path that is none of the above
)}

# Folders of other people's code: an AGENTS.md (any document) in them is third-party text, not
# the user's words (git submodules too: discovery.vendored reads .gitmodules).
VENDORED = frozenset({"third_party", "third-party", "thirdparty", "vendor", "vendors", "vendored",
                      "node_modules", "bower_components", "external", "externals", "deps", "site-packages"})


def in_vendored_folder(rel: str) -> bool:
    """Whether a workspace-relative path lies in a folder of third-party code (by its name)."""
    return any(part in VENDORED for part in PurePosixPath(rel).parts[:-1])


_SKIPPED = {"frontmatter", "heading", "rule"}  # headings are context (each block's trail), not statements
_COMMENT = re.compile(r"^\s*<!--.*-->\s*$", re.DOTALL)
_IMPORT = re.compile(r"(?:^|(?<=\s))@((?:~/|\./|\.\./|/)?[\w.\-/]+)")
_POINTER = re.compile(r"^\s*(?:[-*+]|\d+[.)])?\s*\[[^\]]*\]\(([^)\s]+)\)")
_CWD = re.compile(r"applies_to:\s*cwd=([^;\n]+)")
_CODEX_ROUTING = ("rollout_summary_files", "keywords")  # sections that point at rollouts, not memory
_CLINE = {"projectbrief.md": "foundation: core requirements and goals",
          "productContext.md": "why the project exists and how it should work",
          "systemPatterns.md": "architecture, key technical decisions, design patterns",
          "techContext.md": "technologies, setup, constraints, dependencies",
          "activeContext.md": "current focus and recent changes (changes most often)",
          "progress.md": "what works, what is left, known issues"}


@frozen
class Selection:
    scope: str  # said with every block to the model ("" for none)
    blocks: tuple[Block, ...]
    left_out: tuple[str, ...] = ()  # what was deliberately not imported, one line each


@frozen
class Where:
    """The file being selected from: its path relative to its base folder, and the workspace."""

    rel: str
    path: Path
    root: Path


def select(kind: str, doc: Parsed, where: Where) -> Selection:
    """The blocks of `doc` that a `kind` import takes, the scope they apply in, and what it left out."""
    picker = _PICKERS.get(kind, _plain)
    return picker(doc, where)


def statements(doc: Parsed) -> list[Block]:
    return [b for b in doc.blocks if b.kind not in _SKIPPED and not _COMMENT.match(b.text)]


def _globs(value: Any) -> str:
    items = value if isinstance(value, list) else str(value).split(",") if value else []
    return ", ".join(str(i).strip() for i in items if str(i).strip())


def _folder(where: Where, owned: tuple[str, ...] = (".claude",)) -> str:
    """`applies to work under DIR/` for a file below the root (a nested AGENTS.md), else ""."""
    parent = PurePosixPath(where.rel).parent
    if parent.as_posix() in (".", *owned):
        return ""
    return f"applies to work under {parent.as_posix()}/"


def _imports(doc: Parsed, where: Where) -> tuple[str, ...]:
    """`@path` imports (Claude Code, Gemini CLI) outside code: named, not followed (docs/import.md)."""
    out = []
    for block in statements(doc):
        if block.kind == "code":
            continue
        text = re.sub(r"`[^`]*`", "", block.text)
        for offset, line in enumerate(text.splitlines()):
            for target in _IMPORT.findall(line):
                found = Path(target).expanduser() if target.startswith("~") else where.path.parent / target
                if found.exists():
                    out.append(f"line {block.start + offset} imports @{target}: not followed (pass it as a "
                               "PATH to import it)")
    return tuple(out)


def _plain(doc: Parsed, where: Where) -> Selection:
    return Selection("", tuple(statements(doc)))


def _instructions(doc: Parsed, where: Where) -> Selection:
    """CLAUDE.md, AGENTS.md, GEMINI.md: nested files apply under their folder; `.claude/rules`
    files under their `paths`; CLAUDE.local.md is one developer's."""
    name = PurePosixPath(where.rel).name
    scope = _folder(where)
    if "/.claude/rules/" in f"/{where.rel}" and doc.meta.get("paths"):
        scope = f"applies when working on files matching {_globs(doc.meta['paths'])}"
    elif name == "CLAUDE.local.md":
        scope = "one developer's own notes for this project (CLAUDE.local.md is not shared)"
    elif name == "AGENTS.override.md":
        scope = "; ".join(filter(None, ["overrides AGENTS.md for Codex", scope]))
    return Selection(scope, tuple(statements(doc)), _imports(doc, where))


def _pointers(doc: Parsed, where: Where, blocks: list[Block]) -> tuple[list[Block], list[str]]:
    """An index file's lines that only point at a sibling memory file (imported on its own)."""
    kept, left = [], []
    for block in blocks:
        match = _POINTER.match(block.text)
        target = match.group(1) if match and "\n" not in block.text.strip() else None
        if target is not None and (where.path.parent / target).is_file():
            left.append(f"line {block.start} points to {target}, imported on its own")
        else:
            kept.append(block)
    return kept, left


def _agent_memory(doc: Parsed, where: Where) -> Selection:
    """Claude Code auto memory and Gemini CLI's private memory: MEMORY.md indexes topic files; a
    topic file's frontmatter has its name, description and (Claude Code) type. `type: user`
    memories describe the person and are private by Claude Code's own rule: never imported."""
    meta = doc.meta
    nested = got if isinstance(got := meta.get("metadata"), dict) else {}
    kind = meta.get("type") or nested.get("type")
    if kind == "user":
        return Selection("", (), ("a `type: user` memory (about the person, private): not imported",))
    blocks, left = _pointers(doc, where, statements(doc))
    parts = [f"memory {meta['name']!r}" if meta.get("name") else "",
             f"type {kind}" if kind else "", str(meta.get("description") or "")]
    return Selection("; ".join(p for p in parts if p), tuple(blocks), tuple(left))


def _codex(doc: Parsed, where: Where) -> Selection:
    """Codex's MEMORY.md holds every project's task groups (`# Task Group: …` with `applies_to:
    cwd=…`): only those of this workspace, without their rollout pointers and keyword lines."""
    roots = {where.root, where.root.resolve()}
    groups: dict[int, tuple[str, bool]] = {}  # a group's heading line -> (its title, ours?)
    current: int | None = None
    for block in doc.blocks:
        if block.kind == "heading" and block.level == 1:
            current = block.start
            groups[current] = (_title(block.text), False)
        elif current is not None and (match := _CWD.search(block.text)):
            cwd = Path(match.group(1).strip())
            title, ours = groups[current]
            groups[current] = (title, ours or any(cwd == r or r in cwd.parents for r in roots))
    kept: list[Block] = []
    ours_at = {line for line, (_t, ours) in groups.items() if ours}
    others = len(groups) - len(ours_at)
    group = None
    for block in doc.blocks:
        if block.kind == "heading" and block.level == 1:
            group = block.start
        if group not in ours_at or block.kind in _SKIPPED or _COMMENT.match(block.text):
            continue
        if _CWD.search(block.text) or block.trail and block.trail[-1] in _CODEX_ROUTING:
            continue  # Codex's routing: the group's `scope:` / `applies_to:` header, pointers, keywords
        kept.append(block)
    left = (f"{others} task group(s) of other folders",) if others else ()
    return Selection("a Codex memory task group of this project", tuple(kept), left)


def _title(text: str) -> str:
    return text.lstrip("#").strip()


def _cursor(doc: Parsed, where: Where) -> Selection:
    """`.mdc` frontmatter (Cursor): alwaysApply, globs, description pick one of four modes."""
    meta = doc.meta
    if where.rel.endswith(".cursorrules"):
        scope = "always applied (legacy .cursorrules)"
    elif meta.get("alwaysApply") is True:
        scope = "always applied"
    elif meta.get("globs"):
        scope = f"applies to files matching {_globs(meta['globs'])}"
    elif meta.get("description"):
        scope = f"applied when the agent finds it relevant: {meta['description']}"
    else:
        scope = "applied only when mentioned by name"
    return Selection(_with_folder(scope, where, ".cursor"), tuple(statements(doc)))


def _windsurf(doc: Parsed, where: Where) -> Selection:
    """`.windsurf/rules` frontmatter: trigger always_on | glob (globs) | model_decision | manual."""
    meta = doc.meta
    trigger = meta.get("trigger")
    if where.rel.endswith(".windsurfrules") or trigger in (None, "always_on"):
        scope = "always applied"
    elif trigger == "glob":
        scope = f"applies to files matching {_globs(meta.get('globs'))}"
    elif trigger == "model_decision":
        scope = f"applied when the agent finds it relevant: {meta.get('description', '')}".rstrip(": ")
    else:
        scope = "applied only when mentioned by name"
    return Selection(_with_folder(scope, where, ".windsurf"), tuple(statements(doc)))


def _with_folder(scope: str, where: Where, owner: str) -> str:
    """A rules folder nested below the root (`packages/api/.cursor/rules`) applies under it."""
    parts = PurePosixPath(where.rel).parts
    at = parts.index(owner) if owner in parts else 0
    return f"{scope}; under {'/'.join(parts[:at])}/" if at else scope


def _copilot(doc: Parsed, where: Where) -> Selection:
    apply_to = doc.meta.get("applyTo")
    scope = f"applies to files matching {_globs(apply_to)}" if apply_to else "repository-wide"
    return Selection(scope, tuple(statements(doc)))


def _cline(doc: Parsed, where: Where) -> Selection:
    name = PurePosixPath(where.rel).name
    return Selection(f"{name}: {_CLINE[name]}" if name in _CLINE else name, tuple(statements(doc)))


_PICKERS = {
    "claude-md": _instructions, "agents-md": _instructions, "gemini-md": _instructions,
    "claude-memory": _agent_memory, "gemini-memory": _agent_memory, "codex-memory": _codex,
    "cursor-rules": _cursor, "windsurf-rules": _windsurf, "copilot-instructions": _copilot,
    "cline-memory-bank": _cline,
}
