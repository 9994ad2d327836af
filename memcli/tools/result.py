"""What a tool call returns: a small value the Python caller can inspect and the model can read.

A refused call carries every violation at once (lint findings and the tools' own rules alike), each
with code, path, line, field and a message that says what to do, so the model fixes all of them in
one turn instead of discovering them one by one.

Workspace text in a result (a record's text, search hits, project docs: text that may have come
from a transcript) reaches the model fenced and labelled as data (`memcli.fence`); the Python
caller reads it raw in `data`.
"""

from __future__ import annotations

import json
from dataclasses import field
from typing import Any

from memcli.fence import fence
from memcli.lint import Finding
from memcli.values import frozen


@frozen
class Violation:
    code: str
    message: str  # says what to do
    path: str | None = None
    line: int | None = None
    field: str | None = None
    severity: str = "error"

    @classmethod
    def of(cls, finding: Finding) -> Violation:
        return cls(
            finding.code, finding.message, finding.path, finding.line, finding.field, str(finding.severity)
        )

    @property
    def is_error(self) -> bool:
        return self.severity == "error"

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"code": self.code, "severity": self.severity, "message": self.message}
        for key in ("path", "line", "field"):
            value = getattr(self, key)
            if value is not None:
                data[key] = value
        return data


@frozen
class ToolResult:
    ok: bool
    message: str
    error: str | None = None  # kind of failure: "refused" (violations), "path", "arguments", "not-found", ...
    violations: tuple[Violation, ...] = ()  # errors that blocked the call
    warnings: tuple[Violation, ...] = ()  # findings that did not block it
    data: dict[str, Any] = field(default_factory=dict)  # tool-specific payload (content, hits, ...)
    # (data key, label, fence language): payload that is workspace text, fenced as data for the model
    fenced: tuple[tuple[str, str, str], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"ok": self.ok}
        if self.error is not None:
            out["error"] = self.error
        out["message"] = self.message
        if self.violations:
            out["violations"] = [v.to_dict() for v in self.violations]
        if self.warnings:
            out["warnings"] = [v.to_dict() for v in self.warnings]
        out.update(self.data)
        for key, label, lang in self.fenced:
            if out.get(key):
                out[key] = fence(label, _as_text(out[key]), lang)
        return out

    def to_json(self) -> str:
        # ensure_ascii=False: Japanese records reach the model as text, not \u escapes (and cost fewer tokens)
        return json.dumps(self.to_dict(), ensure_ascii=False, default=str)


def _as_text(value: Any) -> str:
    """A fenced payload as text: strings as they are, a list one JSON object per line."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(json.dumps(v, ensure_ascii=False, default=str) for v in value)
    return json.dumps(value, ensure_ascii=False, default=str)


def success(
    message: str,
    warnings: list[Violation] | tuple[Violation, ...] = (),
    *,
    fenced: tuple[tuple[str, str, str], ...] = (),
    **data: Any,
) -> ToolResult:
    return ToolResult(True, message, warnings=tuple(warnings), data=data, fenced=fenced)


def failure(
    error: str, message: str, *, fenced: tuple[tuple[str, str, str], ...] = (), **data: Any
) -> ToolResult:
    return ToolResult(False, message, error=error, data=data, fenced=fenced)


def refused(tool: str, violations: list[Violation], warnings: list[Violation]) -> ToolResult:
    n = len(violations)
    noun = "violation" if n == 1 else "violations"
    message = (
        f"{tool} refused: {n} {noun}; nothing was written. Each violation says what to do: "
        "address all of them before the next call."
    )
    return ToolResult(False, message, error="refused", violations=tuple(violations), warnings=tuple(warnings))
