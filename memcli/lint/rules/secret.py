"""No secret reaches git through a record."""

from __future__ import annotations

from collections.abc import Iterator

from memcli.lint.finding import Finding, Severity
from memcli.lint.rules.base import Context, Rule
from memcli.records.parse import ParsedRecord
from memcli.secrets import find_secrets


class Secret(Rule):
    """The record contains nothing the `extract` redactor would remove: API keys (AWS, GitHub,
    OpenAI, Anthropic, Google, Slack, Stripe, ...), bearer tokens, JWTs, private keys, passwords in
    URLs or `password = ...` assignments. Memory is committed to git; rotate a leaked key.

    Passing: `the key is read from $OPENAI_API_KEY`.  Failing: `key: AKIAIOSFODNN7EXAMPLE`.
    """

    code, alias, severity = "secret", "E14", Severity.ERROR

    def check_record(self, rec: ParsedRecord, ctx: Context) -> Iterator[Finding]:
        if not rec.text:
            return
        for match in find_secrets(rec.text):
            yield self.finding(
                rec.path,
                match.line(rec.text),
                f"looks like a secret ({match.kind}); remove it, and rotate it if it was real",
            )
