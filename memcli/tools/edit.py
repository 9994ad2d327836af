"""Exact-text replacement for memory_edit: zero or several matches are errors that say where."""

from __future__ import annotations

from memcli.tools.failure import ToolFailure


def _line_at(text: str, index: int) -> int:
    return text.count("\n", 0, index) + 1


def _occurrences(text: str, needle: str) -> list[int]:
    found, start = [], 0
    while (index := text.find(needle, start)) != -1:
        found.append(index)
        start = index + len(needle)
    return found


def _near(text: str, old: str) -> str:
    """A hint for a miss: lines that hold the first non-blank line of old_string."""
    probe = next((ln.strip() for ln in old.splitlines() if ln.strip()), "")
    if not probe:
        return ""
    lines = [i + 1 for i, ln in enumerate(text.splitlines()) if probe in ln]
    if not lines:
        return ""
    shown = ", ".join(map(str, lines[:5]))
    return f" Its first line appears on line(s) {shown}; the rest differs (whitespace, line breaks?)."


def apply_edit(path: str, text: str, old: str, new: str, replace_all: bool) -> str:
    """The edited text; ToolFailure when old_string does not pick exactly one place."""
    if old == "":
        raise ToolFailure("arguments", "old_string is empty; copy the exact text to replace from memory_read")
    if old == new:
        raise ToolFailure("arguments", "old_string and new_string are the same; nothing would change")
    hits = _occurrences(text, old)
    if not hits:
        raise ToolFailure(
            "no-match",
            f"old_string was not found in {path}; read the file again and copy the text exactly, "
            "from inside the ~~~~ fence (without the DATA label, the fence marks or line numbers)."
            + _near(text, old),
        )
    if len(hits) > 1 and not replace_all:
        lines = ", ".join(str(_line_at(text, i)) for i in hits)
        raise ToolFailure(
            "multiple-matches",
            f"old_string occurs {len(hits)} times in {path} (at lines {lines}); "
            "include more surrounding text so it matches once, or set replace_all=true",
        )
    if replace_all:
        return text.replace(old, new)
    return text[: hits[0]] + new + text[hits[0] + len(old) :]
