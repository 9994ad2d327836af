"""A record's skill: the files of its folder, for the agents that read that folder.

- `SKILL.md`: `name` (the slug) and `description` (the record's, on one line), the fields the
  readers' dialects add (Claude Code's `disable-model-invocation`, ...), then the record's body and
  a one-line footer saying where it comes from and how to ask `memcli why <slug>`;
- the files the dialects add (Codex's `agents/openai.yaml` for explicit use only);
- `.gitignore` (`*`, so git ignores the folder, itself included) when skills are not committed;
- `.memcli-skill`, the marker: memcli wrote this folder, from this record, these files, with these
  contents (a SHA-256 each). A folder without it is a person's skill, which memcli never touches;
  a file whose content no longer has its hash was edited by hand: noticed, never overwritten.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memcli.skills.place import Target
    from memcli.skills.sources import Source

SKILL = "SKILL.md"
MARKER = ".memcli-skill"
IGNORE = ".gitignore"
IGNORE_ALL = b"*\n"


def _frontmatter(meta: dict[str, Any]) -> str:
    import yaml  # here: an unchanged skills sync writes no SKILL.md and loads no PyYAML

    return yaml.safe_dump(meta, sort_keys=False, allow_unicode=True, width=1_000_000)


def footer(source: Source) -> str:
    return (f"_From this project's memory (`{source.path}`), kept here by memcli: edit that record, not "
            f"this file. Why it says this and where it came from: `memcli why {source.slug}`._\n")


def skill_md(source: Source, fields: dict[str, Any]) -> str:
    meta = {"name": source.slug, "description": source.description, **fields}
    body = source.body.strip("\n")
    needs = f"Requires: {', '.join(f'`{r}`' for r in source.requires)}.\n\n" if source.requires else ""
    return f"---\n{_frontmatter(meta)}---\n{body}\n\n{needs}{footer(source)}"


def skill_files(source: Source, readers: list[Target], commit: bool) -> dict[str, bytes]:
    """File name (relative to the skill's folder) → bytes, the marker included."""
    fields: dict[str, Any] = {}
    extra: dict[str, str] = {}
    for reader in readers:
        fields.update(reader.dialect.fields(source.model, source.user) or {})
        extra.update(reader.dialect.files(source.model, source.user))
    out = {SKILL: skill_md(source, fields).encode("utf-8")}
    out.update((name, text.encode("utf-8")) for name, text in extra.items())
    if not commit:
        out[IGNORE] = IGNORE_ALL
    out[MARKER] = marker(source.path, out)
    return out


def marker(source: str, files: dict[str, bytes]) -> bytes:
    hashes = {name: hashlib.sha256(data).hexdigest() for name, data in sorted(files.items())}
    return (json.dumps({"generated_by": "memcli skills sync", "source": source, "files": sorted(files),
                        "sha256": hashes}) + "\n").encode("utf-8")


def edited(data: bytes, read: Callable[[str], bytes | None]) -> list[str]:
    """The files a marker names whose content (`read(name)`; None: gone) is not what memcli wrote
    (a marker from before the hashes were kept: none)."""
    try:
        hashes = json.loads(data).get("sha256")
    except (ValueError, AttributeError):
        return []
    if not isinstance(hashes, dict):
        return []
    out = []
    for name, digest in sorted(hashes.items()):
        if not isinstance(name, str) or ".." in name.split("/") or name.startswith("/"):
            continue
        found = read(name)
        if found is not None and hashlib.sha256(found).hexdigest() != digest:
            out.append(name)
    return out


def read_marker(data: bytes) -> list[str] | None:
    """The files a marker names (its own name added), or None when it is not memcli's marker."""
    try:
        found = json.loads(data)
    except ValueError:
        return None
    files = found.get("files") if isinstance(found, dict) else None
    if not isinstance(files, list) or not all(isinstance(f, str) for f in files):
        return None
    return [f for f in files if f and ".." not in f.split("/") and not f.startswith("/")] + [MARKER]
