"""Does a merged record still lint clean? The checks a merge of two valid versions can break.

The driver cannot afford the Linter (pydantic and the rule registry cost more than its whole time
budget), and does not need all of it: each side passed the Linter when it was committed, and a
merge only combines their fields. What a combination can break is checked here: the frontmatter
still parses, every required field of the kind is there, the status agrees with `replaced_by`,
timestamps and Sources keep their shape, the body stays under its size cap, and no secret appears.
`memcli lint` in the hook and in CI remains the full verdict.
"""

from __future__ import annotations

import tomllib
from pathlib import PurePosixPath
from typing import Any

from memcli.merge.fields import _when
from memcli.merge.side import Side, Unreadable, read_side

_DATED = ("created_at", "updated_at")
REQUIRED: dict[str, tuple[str, ...]] = {
    "summary": ("updated_at",),
    "decision": (*_DATED, "sources", "status"),
    "request": (*_DATED, "sources"),
    "knowledge": (*_DATED, "kind", "description", "model_invocation", "user_invocable", "last_sources"),
    "workflow": (*_DATED, "description", "auto_invoke", "user_invocable", "requires"),
}
_FOLDERS = {("memory", "decisions"): "decision", ("memory", "requests"): "request",
            ("memory", "workflow"): "workflow"}
_LIMITS = {"summary_max_chars": 20_000, "summary_max_tokens": 5_000, "body_max_chars": 8_000}


def kind_of(path: str) -> tuple[str | None, PurePosixPath | None]:
    """(record kind, workspace root relative to the repository) from the path git merges."""
    parts = PurePosixPath(path).parts
    if len(parts) >= 2 and parts[-2:] == ("memory", "summary.md"):
        return "summary", PurePosixPath(*parts[:-2])
    if len(parts) >= 3 and parts[-1].endswith(".md") and (parts[-3], parts[-2]) in _FOLDERS:
        return _FOLDERS[parts[-3], parts[-2]], PurePosixPath(*parts[:-3])
    if len(parts) >= 2 and parts[-1].endswith(".md") and parts[-2] == "knowledge":
        return "knowledge", PurePosixPath(*parts[:-2])
    return None, None


def _limits(root: PurePosixPath | None) -> dict[str, int]:
    """The size caps of the workspace's config (git runs drivers at the repository's top)."""
    limits = dict(_LIMITS)
    if root is None:
        return limits
    for name, table in (("memcli.toml", ("lint",)), ("pyproject.toml", ("tool", "memcli", "lint"))):
        try:
            with open(str(root / name) if str(root) != "." else name, "rb") as fh:
                data: Any = tomllib.load(fh)
        except (OSError, tomllib.TOMLDecodeError):
            continue
        for part in table:
            data = data.get(part, {}) if isinstance(data, dict) else {}
        if isinstance(data, dict):
            limits.update({k: v for k, v in data.items() if k in _LIMITS and isinstance(v, int)})
        if name == "memcli.toml":
            break
    return limits


def _source_ok(item: Any) -> bool:
    if not isinstance(item, dict) or set(item) != {"session_id", "range"}:
        return False
    sid, rng = item["session_id"], item["range"]
    return (isinstance(sid, str) and bool(sid.strip()) and isinstance(rng, list) and len(rng) == 2
            and all(type(x) is int and x >= 0 for x in rng) and rng[0] <= rng[1])


def _field_problems(kind: str, values: dict[str, Any]) -> list[str]:
    if kind == "knowledge" and "model_invokation" in values and "model_invocation" not in values:
        values = {**values, "model_invocation": values["model_invokation"]}
    out = [f"required field {k!r} is missing" for k in REQUIRED[kind] if k not in values]
    out += [f"{k} is not an RFC 3339 timestamp with a zone" for k in _DATED
            if k in values and _when(values[k]) is None]
    for key in ("sources", "last_sources"):
        if key in values and not (isinstance(values[key], list) and all(map(_source_ok, values[key]))):
            out.append(f"{key} is not a list of Sources")
    if kind == "decision":
        status, by = values.get("status"), values.get("replaced_by")
        if status not in ("open", "resolved", "replaced"):
            out.append(f"status {status!r} is not open, resolved or replaced")
        elif (status == "replaced") != (by is not None):
            out.append("status replaced and replaced_by go together")
    return out


def problems(text: str, path: str, sides: tuple[str, ...] = ()) -> list[str]:
    """Why `text` (the merged record, LF line ends) would not lint clean; [] when it would.

    Only lines found in none of `sides` (the versions merged) are scanned for secrets: each side
    passed the Linter's secret rule when it was committed, and the scan's patterns do not span lines.
    """
    try:
        side: Side = read_side(text.encode("utf-8"))
    except Unreadable as exc:
        return [str(exc)]
    kind, root = kind_of(path)
    out = _field_problems(kind, side.values) if kind else []
    limits = _limits(root) if kind else {}
    if kind == "summary":
        # here: git runs the merge driver at every merge of a record; only a summary needs the
        # Linter's own estimate (too-large)
        from memcli.tokens import EstimateCounter

        tokens = EstimateCounter().count(text)
        if tokens > limits["summary_max_tokens"]:
            out.append(f"the merged summary is about {tokens} tokens (cap {limits['summary_max_tokens']})")
    if kind and kind != "workflow":  # workflow bodies have no cap
        cap = limits["summary_max_chars" if kind == "summary" else "body_max_chars"]
        size = len(text) if kind == "summary" else len(side.body)
        if size > cap:
            out.append(f"the merged {'file' if kind == 'summary' else 'body'} has {size} characters "
                       f"(cap {cap})")
    known = {line for side in sides for line in side.split("\n")}
    new = "\n".join(line for line in text.split("\n") if line not in known)
    if new.strip():
        from memcli.secrets import find_secrets  # here: only when there is a line to scan: it costs ~15 ms

        if any(True for _ in find_secrets(new)):
            out.append("the merged text contains something that looks like a secret")
    return out
