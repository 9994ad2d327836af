"""No secret reaches git through a record."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from memcli.lint.finding import Finding, Severity
from memcli.lint.rules.base import Context, Rule

if TYPE_CHECKING:
    from memcli.records.parse import ParsedRecord

# Beyond this size a record is refused by `too-large` anyway; scanning megabytes for secrets would
# make one broken file stall the commit path, so the scan waits until the file is trimmed.
MAX_SCAN_CHARS = 1_000_000


class Secret(Rule):
    """The record contains nothing the `extract` redactor (`memcli.secrets`) would remove: API keys
    (AWS, GitHub, OpenAI, Anthropic, Google, Slack, Stripe, ...), bearer tokens, JWTs, private
    keys, passwords in URLs or `password = ...` assignments. One finding per secret, on the file
    line where it starts (frontmatter included).

    Why: memory is committed to git and shared, so a secret must never land there, whoever wrote
    it; rotate a key that was real. A file over 1 000 000 characters is not scanned (it already
    fails `too-large`).

    Passing: `the key is read from $OPENAI_API_KEY`.
    Failing: `key: AKIAIOSFODNN7EXAMPLE`, `postgres://app:s3cr3tPass@db/x`.
    """

    code, alias, severity = "secret", "E14", Severity.ERROR

    def check_record(self, rec: ParsedRecord, ctx: Context) -> Iterator[Finding]:
        from memcli.secrets import find_secrets  # here: a warm commit hook checks no record

        text = rec.text
        if not text or len(text) > MAX_SCAN_CHARS:
            return
        for match in find_secrets(text):
            yield self.finding(
                rec.path,
                match.line(text),
                f"looks like a secret ({match.kind}); remove it, and rotate it if it was real",
            )
