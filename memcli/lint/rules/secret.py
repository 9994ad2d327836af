"""No secret reaches git through a record."""

from __future__ import annotations

import re
from collections.abc import Iterator

from memcli import secrets
from memcli.lint.finding import Finding, Severity
from memcli.lint.rules.base import Context, Rule
from memcli.records.parse import ParsedRecord

# A cheap pre-filter in front of `find_secrets` (19 regexes over the whole text): every pattern of
# the detector needs one of these literals (case-sensitive patterns) or a match of `_FOLDED`
# (the case-insensitive ones, matched with the same `re.IGNORECASE` rules), so a record with none
# cannot match. A pattern kind not listed here turns the pre-filter off: a new detector pattern is
# never silently skipped.
_EXACT = {
    "private-key": ("PRIVATE KEY",),
    "aws-access-key-id": ("AKIA", "ASIA", "ABIA", "ACCA"),
    "github-token": ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
    "openai-api-key": ("sk-",),
    "anthropic-api-key": ("sk-ant-",),
    "google-api-key": ("AIza",),
    "google-oauth-token": ("ya29.",),
    "slack-token": ("xox",),
    "slack-webhook": ("https://hooks.slack.com/",),
    "stripe-key": ("k_live_", "k_test_"),
    "huggingface-token": ("hf_",),
    "gitlab-token": ("glpat-",),
    "npm-token": ("npm_",),
    "sendgrid-key": ("SG.",),
    "jwt": ("eyJ",),
    "url-password": ("://",),
}
_FOLDED = re.compile(
    r"(?i)aws|bearer|(?:password|passwd|pwd|secret|token|api[_\-]?key|access[_\-]?key|private[_\-]?key|"
    r"auth[_\-]?key|credentials?)[\"']?\s*(?::=|=|:)"
)
_KNOWN = {*_EXACT, "aws-secret-access-key", "bearer-token", "credential-assignment"}
_EXACT_ALL = tuple(sorted({lit for lits in _EXACT.values() for lit in lits}))
# Beyond this size a record is refused by `too-large` anyway; scanning megabytes for secrets would
# make one broken file stall the commit path, so the scan waits until the file is trimmed.
MAX_SCAN_CHARS = 1_000_000


def _prefilter_enabled() -> bool:
    kinds = {kind for kind, _, _ in getattr(secrets, "_PATTERNS", ())}
    return bool(kinds) and kinds <= _KNOWN


_ENABLED = _prefilter_enabled()


def might_contain_secret(text: str) -> bool:
    """False only when no pattern of the secret detector can match `text`."""
    if not _ENABLED:
        return True
    return any(lit in text for lit in _EXACT_ALL) or _FOLDED.search(text) is not None


class Secret(Rule):
    """The record contains nothing the `extract` redactor would remove: API keys (AWS, GitHub,
    OpenAI, Anthropic, Google, Slack, Stripe, ...), bearer tokens, JWTs, private keys, passwords in
    URLs or `password = ...` assignments. Memory is committed to git, so a secret must never land
    there, whoever wrote it; one finding per secret, on the line where it starts.

    Passing: `the key is read from $OPENAI_API_KEY`.  Failing: `key: AKIAIOSFODNN7EXAMPLE`.
    """

    code, alias, severity = "secret", "E14", Severity.ERROR

    def check_record(self, rec: ParsedRecord, ctx: Context) -> Iterator[Finding]:
        text = rec.text
        if not text or len(text) > MAX_SCAN_CHARS or not might_contain_secret(text):
            return
        for match in secrets.find_secrets(text):
            yield self.finding(
                rec.path,
                match.line(text),
                f"looks like a secret ({match.kind}); remove it, and rotate it if it was real",
            )
