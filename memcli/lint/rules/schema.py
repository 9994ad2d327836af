"""Rules over one record's frontmatter: parse, fields, status, aliases."""

from __future__ import annotations

from collections.abc import Iterator

from memcli.lint.finding import Finding, Severity
from memcli.lint.rules.base import Context, Rule
from memcli.records.parse import ParsedRecord
from memcli.workspace import Kind

STATUSES = ("open", "resolved", "replaced")


def _is_status_value_issue(rec: ParsedRecord, field: str) -> bool:
    """A decision's `status` is present but not one of the enum (any type): `invalid-status`."""
    return rec.kind is Kind.DECISION and field == "status" and (rec.meta or {}).get("status") is not None


class Parse(Rule):
    """The file must be UTF-8 text with a YAML mapping between `---` lines at the top.

    Passing::

        ---
        created_at: 2026-04-27T10:00:00+09:00
        ---
    Failing: no opening `---`, no closing `---`, a YAML syntax error, duplicate keys, a list or a
    scalar instead of a mapping, bytes that are not UTF-8, a binary file, a directory named `x.md`,
    a symlink that leaves the workspace.
    """

    code, alias, severity = "parse", "E01", Severity.ERROR

    def check_record(self, rec: ParsedRecord, ctx: Context) -> Iterator[Finding]:
        if rec.parse_error is not None:
            yield self.finding(rec.path, rec.parse_line, rec.parse_error)


class MissingField(Rule):
    """Every required field of the record's kind is present (spec 1 §3).

    Passing: a request with `created_at`, `updated_at` and `sources`.
    Failing: a decision without `status`.
    """

    code, alias, severity = "missing-field", "E02", Severity.ERROR

    def check_record(self, rec: ParsedRecord, ctx: Context) -> Iterator[Finding]:
        for issue in rec.issues:
            if issue.problem == "missing":
                yield self.finding(rec.path, 1, issue.message, issue.field)


class InvalidField(Rule):
    """Each field has the right type and value: RFC 3339 timestamps with a zone, Sources as
    `{session_id, range: [start, end]}` with `0 <= start <= end`, booleans, enums.

    Passing: `updated_at: 2026-04-27T10:00:00+09:00`.
    Failing: `updated_at: 2026-04-27 10:00` (no zone), `range: [5, 2]`, `model_invocation: "yes"`,
    both `model_invocation` and `model_invokation` set.
    """

    code, alias, severity = "invalid-field", "E03", Severity.ERROR

    def check_record(self, rec: ParsedRecord, ctx: Context) -> Iterator[Finding]:
        for issue in rec.issues:
            if issue.problem in ("invalid", "conflict") and not _is_status_value_issue(rec, issue.field):
                yield self.finding(rec.path, issue.line, issue.message, issue.field)


class InvalidStatus(Rule):
    """A decision's `status` is exactly one of `open`, `resolved`, `replaced`.

    Passing: `status: resolved`.  Failing: `status: Replaced`, `status: done`.
    """

    code, alias, severity = "invalid-status", "E05", Severity.ERROR

    def check_record(self, rec: ParsedRecord, ctx: Context) -> Iterator[Finding]:
        for issue in rec.issues:
            if issue.problem == "invalid" and _is_status_value_issue(rec, issue.field):
                value = (rec.meta or {})["status"]
                folded = str(value).strip().lower()
                hint = f"; did you mean {folded!r}?" if folded in STATUSES else ""
                yield self.finding(
                    rec.path,
                    issue.line,
                    f"status {value!r} is not one of {', '.join(STATUSES)}{hint}",
                    "status",
                )


class ReplacedByInconsistent(Rule):
    """`replaced_by` is set exactly when `status: replaced`.

    Passing: `status: replaced` with `replaced_by: use-postgres`.
    Failing: `status: replaced` alone, or `status: open` with a `replaced_by`.
    """

    code, alias, severity = "replaced-by-inconsistent", "E06", Severity.ERROR

    def check_record(self, rec: ParsedRecord, ctx: Context) -> Iterator[Finding]:
        if rec.kind is not Kind.DECISION or rec.meta is None:
            return
        status, replaced_by = rec.meta.get("status"), rec.meta.get("replaced_by")
        if status not in STATUSES:
            return  # invalid-status or missing-field already says it
        if status == "replaced" and replaced_by is None:
            yield self.finding(
                rec.path,
                rec.line_of("status"),
                "status is 'replaced' but replaced_by is missing; name the decision that replaces this one",
                "replaced_by",
            )
        elif status != "replaced" and replaced_by is not None:
            yield self.finding(
                rec.path,
                rec.line_of("replaced_by"),
                f"replaced_by is set but status is {status!r}; set status: replaced or remove replaced_by",
                "replaced_by",
            )


class UnknownField(Rule):
    """Fields the kind does not define are reported (humans may add tags), with the likely intended
    field when the name is a near miss.

    Passing: only the kind's fields.  Failing: `replacedby: x` (did you mean `replaced_by`?),
    `id: ...` (the file name is the slug).
    """

    code, alias, severity = "unknown-field", "W05", Severity.WARNING

    def check_record(self, rec: ParsedRecord, ctx: Context) -> Iterator[Finding]:
        for issue in rec.issues:
            if issue.problem == "unknown":
                yield self.finding(rec.path, issue.line, issue.message, issue.field)


class DeprecatedField(Rule):
    """The seeds' spelling `model_invokation` is read as `model_invocation`, with a warning.

    Passing: `model_invocation: false`.  Failing: `model_invokation: false`.
    """

    code, alias, severity = "deprecated-field", "W06", Severity.WARNING

    def check_record(self, rec: ParsedRecord, ctx: Context) -> Iterator[Finding]:
        for issue in rec.issues:
            if issue.problem == "deprecated":
                yield self.finding(rec.path, issue.line, issue.message, issue.field)
