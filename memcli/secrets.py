"""The secret detector: what `extract` redacts before text leaves the machine, and what the
Linter's `secret` rule refuses to let into git.

Patterns are specific (a vendor prefix, a fixed shape, or a credential-looking key next to a
high-entropy value) so that ordinary code and prose do not trip them.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass


@dataclass(frozen=True)
class SecretMatch:
    kind: str
    start: int  # span of the secret value itself (what gets redacted)
    end: int

    def line(self, text: str) -> int:
        return text.count("\n", 0, self.start) + 1


def _entropy(value: str) -> float:
    counts: dict[str, int] = {}
    for ch in value:
        counts[ch] = counts.get(ch, 0) + 1
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in counts.values())


# (kind, pattern, group holding the secret value: 0 = whole match)
_PATTERNS: list[tuple[str, re.Pattern[str], int]] = [
    (
        "private-key",
        re.compile(
            r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|\Z)"
        ),
        0,
    ),
    ("aws-access-key-id", re.compile(r"\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b"), 0),
    (
        "aws-secret-access-key",
        re.compile(
            r"(?i)aws_?(?:secret_?access_?key|secret)\b[\"']?\s*[:=]\s*[\"']?([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])"
        ),
        1,
    ),
    ("github-token", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b"), 0),
    ("anthropic-api-key", re.compile(r"\bsk-ant-(?:api|admin)\d{2}-[A-Za-z0-9_\-]{20,}"), 0),
    (
        "openai-api-key",
        re.compile(r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}T3BlbkFJ[A-Za-z0-9_\-]{20,}|\bsk-(?:proj|svcacct|admin)-[A-Za-z0-9_\-]{40,}|\bsk-[A-Za-z0-9]{48}\b"),
        0,
    ),
    ("google-api-key", re.compile(r"\bAIza[0-9A-Za-z_\-]{35}(?![0-9A-Za-z_\-])"), 0),
    ("google-oauth-token", re.compile(r"\bya29\.[0-9A-Za-z_\-]{20,}"), 0),
    ("slack-token", re.compile(r"\bxox[abposr]-(?:[0-9A-Za-z]+-){1,4}[0-9A-Za-z]{10,}"), 0),
    (
        "slack-webhook",
        re.compile(r"https://hooks\.slack\.com/(?:services|workflows)/[A-Za-z0-9_/\-]{20,}"),
        0,
    ),
    ("stripe-key", re.compile(r"\b(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{16,}"), 0),
    ("huggingface-token", re.compile(r"\bhf_[A-Za-z]{34}\b"), 0),
    ("gitlab-token", re.compile(r"\bglpat-[0-9A-Za-z_\-]{20,}"), 0),
    ("npm-token", re.compile(r"\bnpm_[A-Za-z0-9]{36}\b"), 0),
    ("sendgrid-key", re.compile(r"\bSG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}\b"), 0),
    (
        "jwt",
        re.compile(r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{10,}"),
        0,
    ),
    (
        "bearer-token",
        re.compile(r"(?i)\b(?:authorization\s*[:=]\s*[\"']?)?bearer\s+([A-Za-z0-9_\-.~+/]{20,}=*)"),
        1,
    ),
    (
        "url-password",
        re.compile(r"\b[a-z][a-z0-9+.\-]{1,20}://[^\s:/@\"'<>]{1,64}:([^\s@/\"'<>]{3,128})@[^\s/\"'<>]+"),
        1,
    ),
    (
        "credential-assignment",
        re.compile(
            r"(?i)(?<![A-Za-z0-9])[\"']?([A-Za-z0-9_.\-]*?(?:password|passwd|pwd|secret|token|api[_\-]?key|"
            r"access[_\-]?key|private[_\-]?key|client[_\-]?secret|auth[_\-]?key|credentials?))[\"']?"
            r"\s*(?::=|=|:)\s*([\"']?)([^\s\"',;)}\]]{8,200})\2"
        ),
        3,
    ),
]

# Values that look like placeholders, references or code, not secrets.
_PLACEHOLDER = re.compile(
    r"(?i)^(?:\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|<[^>]*>|\{\{.*\}\}|%\(?[a-z_]+\)?s?|x{4,}|\*{3,}|"
    r"(?:your|my|the|some|example|dummy|sample|fake|test|changeme|placeholder|redacted|none|null|"
    r"true|false|undefined|password|secret|token)[_\-a-z0-9]*|.*\[REDACTED[^\]]*\].*)$"
)
_CODEISH = re.compile(r"[()\[\]{}]|^[a-z_][a-z0-9_]*(?:\.[a-z_][a-z0-9_]*)+$|^(?:os|env|process|self|config|settings)\b")


def _credential_value_ok(value: str) -> bool:
    """True when a `key = value` value looks like a real secret, not code or a placeholder."""
    if _PLACEHOLDER.match(value) or _CODEISH.search(value):
        return False
    if value.isdigit() or value.isalpha() and value.islower():
        return False
    classes = sum(bool(re.search(p, value)) for p in (r"[a-z]", r"[A-Z]", r"[0-9]", r"[^A-Za-z0-9]"))
    return classes >= 2 and _entropy(value) >= 3.0


def find_secrets(text: str) -> Iterator[SecretMatch]:
    """Every secret in `text`, as non-overlapping spans in order."""
    found: list[SecretMatch] = []
    for kind, pattern, group in _PATTERNS:
        for m in pattern.finditer(text):
            start, end = m.span(group)
            if start < 0:
                continue
            value = m.group(group)
            if kind == "credential-assignment" and not _credential_value_ok(value):
                continue
            if kind in ("bearer-token", "url-password") and _PLACEHOLDER.match(value):
                continue
            found.append(SecretMatch(kind, start, end))
    found.sort(key=lambda s: (s.start, -(s.end - s.start)))
    last_end = -1
    for match in found:
        if match.start >= last_end:
            last_end = match.end
            yield match


def redact(text: str) -> tuple[str, int]:
    """`text` with every secret replaced by `[REDACTED:<kind>]`, and how many were replaced."""
    parts: list[str] = []
    pos = count = 0
    for match in find_secrets(text):
        parts.append(text[pos : match.start])
        parts.append(f"[REDACTED:{match.kind}]")
        pos = match.end
        count += 1
    if not count:
        return text, 0
    parts.append(text[pos:])
    return "".join(parts), count
