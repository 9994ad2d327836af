"""Find explicit invokes of records in one transcript entry — pure functions, no I/O.

An invoke is deliberate use of a record: the agent reading its file (a read tool, or a shell
command such as `cat`/`sed -n` on `knowledge/<slug>.md`, or a memcli memory tool), or the user
typing `#<slug>` / `/<slug>` or attaching `@knowledge/<slug>.md`. Resident injection (`memcli
context` output in a SessionStart hook, AGENTS.md blocks) arrives as injected entries or tool
results and is never looked at here.

Targets are stored unresolved: a workspace path, or a bare slug (`#slug`, `memcli show slug`).
Whether it names an existing record is decided when the figures are computed, so a scan's result
does not depend on which records happened to exist at scan time (and a mention written before a
record was created falls outside that record's lifetime window anyway).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from typing import Any

from memcli.transcript.model import Entry, ToolCall
from memcli.values import frozen

READ = "read"  # a read tool or memory tool opened the file
SHELL = "shell"  # a shell command printed the file
MENTION = "mention"  # the user wrote #slug or /slug

_SLUG = r"[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?"
# A record path anywhere in a string: relative, ./-prefixed or absolute (the workspace is the cwd
# of the sessions discovered for it).
_PATH = (r"((?:memory/(?:decisions|requests|workflow)|knowledge)/" + _SLUG + r"\.md|memory/summary\.md)"
         r"(?![A-Za-z0-9_-]|\.[A-Za-z0-9])")
RECORD_PATH_RE = re.compile(r"(?<![A-Za-z0-9_.-])" + _PATH)
# `@knowledge/x.md`: Claude Code's way for the user to attach a file to the prompt (not an e-mail).
AT_PATH_RE = re.compile(r"(?<![A-Za-z0-9_.])@(?:\./)?" + _PATH)
# `#slug` or `/slug` typed by the user: not inside a path or URL, not followed by more path.
# ASCII classes on purpose: Japanese text may sit right next to the mark ("詳細は#wal-modeを").
MENTION_RE = re.compile(r"(?<![A-Za-z0-9_/.:#\\-])[#/](" + _SLUG + r")(?![A-Za-z0-9_/-]|\.[A-Za-z0-9])")

_READ_TOOLS = frozenset({
    "read", "read_file", "readfile", "view", "view_file", "open", "open_file", "cat",
    "read_many_files", "notebookread", "memory_read", "knowledge_read", "read_record",
})
_EDITOR_TOOLS = frozenset({"str_replace_based_edit_tool", "str_replace_editor", "text_editor"})
_SHELL_TOOLS = frozenset({
    "bash", "shell", "exec_command", "local_shell", "run_shell_command", "execute_command",
    "terminal", "container.exec", "run_terminal_cmd",
})
_PATH_KEYS = ("file_path", "path", "absolute_path", "filename", "file", "target_file", "paths", "files")
# Shell programs that print a file's content; writers (tee, rm, mv, sed -i, > redirects) are not reads.
_READERS = frozenset({
    "cat", "head", "tail", "less", "more", "sed", "awk", "bat", "batcat", "nl", "view", "vi", "vim",
    "nvim", "grep", "egrep", "rg", "open", "xdg-open", "code", "type", "get-content", "glow", "mdcat",
})
# memcli has no such command today; an agent guessing one (or a future one) still means a use.
_MEMCLI_READS = frozenset({"show", "read", "cat", "open", "get"})
_PREFIXES = frozenset({"sudo", "command", "time", "nice", "env", "xargs"})
# memcli's own MCP read tool under every agent's naming of an MCP tool: `mcp__memcli__memcli_read`
# (Claude Code, Codex), `mcp_memcli_memcli_read` (Gemini CLI), `memcli_memcli_read`, or bare. Its one
# argument, `record`, is a slug or a record path.
_MEMCLI_READ_TOOL = re.compile(r"(?:^|[_.:/-])memcli_read$")
_SLUG_RE = re.compile(_SLUG)
_SLUG_ONLY = re.compile(_SLUG + r"$")
_SEPARATORS = re.compile(r"&&|\|\||[;|\n]")


@frozen
class Hit:
    """One invoke found in an entry: `target` is a workspace path (read/shell) or a slug (mention)."""

    target: str
    how: str


def entry_invokes(entry: Entry) -> Iterator[Hit]:
    """Every invoke in one entry; a tool call that reads two records gives two hits."""
    if entry.role == "user" and not entry.injected and entry.text:
        for match in MENTION_RE.finditer(entry.text):
            yield Hit(match.group(1), MENTION)
        if "@" in entry.text:
            for match in AT_PATH_RE.finditer(entry.text):
                yield Hit(match.group(1), MENTION)
    for call in entry.tool_calls:
        yield from call_invokes(call)


def call_invokes(call: ToolCall) -> Iterator[Hit]:
    args = call.arguments  # the adapters already parsed JSON-string arguments
    if _MEMCLI_READ_TOOL.search(call.name.lower()):
        yield from _memcli_read(args)
        return
    name = call.name.lower().rsplit("__", 1)[-1]  # mcp__memcli__memory_read -> memory_read
    if name in _SHELL_TOOLS:
        for script in _scripts(args):
            for path in shell_reads(script):
                yield Hit(path, SHELL)
        return
    if name in _EDITOR_TOOLS:
        if not (isinstance(args, dict) and args.get("command") == "view"):
            return
    elif name not in _READ_TOOLS:
        return
    for value in _path_values(args):
        for match in RECORD_PATH_RE.finditer(value):
            yield Hit(match.group(1), READ)




def _memcli_read(args: dict[str, Any] | str) -> Iterator[Hit]:
    record = args.get("record") if isinstance(args, dict) else args
    if not isinstance(record, str):
        return
    record = record.strip()
    if match := RECORD_PATH_RE.search(record):
        yield Hit(match.group(1), READ)
    elif _SLUG_RE.fullmatch(record):
        yield Hit(record, READ)


def _path_values(args: dict[str, Any] | str) -> Iterator[str]:
    if isinstance(args, str):
        yield args
        return
    for key in _PATH_KEYS:
        value = args.get(key)
        if isinstance(value, str):
            yield value
        elif isinstance(value, list):
            yield from (v for v in value if isinstance(v, str))


def _scripts(args: dict[str, Any] | str) -> Iterator[str]:
    if isinstance(args, str):
        yield args
        return
    for key in ("cmd", "command", "script"):
        value = args.get(key)
        if isinstance(value, str):
            yield value
        elif isinstance(value, list) and all(isinstance(v, str) for v in value):
            # Codex `shell`: ["bash", "-lc", "<script>"] — the script is the last word.
            if len(value) >= 3 and value[-2] in ("-c", "-lc"):
                yield value[-1]
            else:
                yield shlex.join(value)


def shell_reads(script: str) -> Iterator[str]:
    """Record paths (or, for `memcli show <slug>`, slugs) a shell script prints with a reading command."""
    if "memory/" not in script and "knowledge/" not in script and "memcli" not in script:
        return  # the common case, decided without tokenising
    for segment in _SEPARATORS.split(script):
        try:
            words = shlex.split(segment, posix=True)
        except ValueError:
            words = segment.split()
        while words and ("=" in words[0] and not words[0].startswith("=") or words[0] in _PREFIXES):
            words = words[1:]
        if not words:
            continue
        program = words[0].rsplit("/", 1)[-1].lower()
        args = words[1:]
        if program == "memcli":
            if not args or args[0] not in _MEMCLI_READS:
                continue
        elif program not in _READERS or (program == "sed" and any(a.startswith("-i") for a in args)):
            continue
        if program == "memcli" and len(args) > 1 and _SLUG_ONLY.match(args[1]):
            yield args[1]  # `memcli show <slug>`: resolved like a mention, counted as a read
        after_redirect = False
        for word in args:
            if word in (">", ">>", "1>", "2>", "&>"):
                after_redirect = True
                continue
            if after_redirect or word.startswith(">"):
                after_redirect = False
                continue  # the target of a redirect is written, not read
            for match in RECORD_PATH_RE.finditer(word):
                yield match.group(1)
