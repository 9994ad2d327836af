"""The one finding type every rule yields and every formatter prints."""

from __future__ import annotations

import enum
from dataclasses import asdict, dataclass


class Severity(enum.StrEnum):
    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True, order=True)
class Finding:
    path: str  # workspace-relative POSIX path
    line: int | None
    code: str  # stable kebab-case id, e.g. "missing-field"
    severity: Severity
    message: str  # says what to do
    alias: str = ""  # short id, e.g. "E02"
    field: str | None = None

    def to_dict(self) -> dict[str, object]:
        data = asdict(self)
        data["severity"] = str(self.severity)
        return data

    @property
    def is_error(self) -> bool:
        return self.severity is Severity.ERROR
