"""Rules over one record's frontmatter: parse, fields, status, aliases."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from memcli.lint.finding import Finding, Severity
from memcli.lint.rules.base import Context, Rule
from memcli.workspace import Kind

if TYPE_CHECKING:
    from memcli.records.parse import ParsedRecord

STATUSES = ("open", "resolved", "replaced")


def _is_status_value_issue(rec: ParsedRecord, field: str) -> bool:
    """A decision's `status` is present but not one of the enum (any type): `invalid-status`."""
    return rec.kind is Kind.DECISION and field == "status" and (rec.meta or {}).get("status") is not None


class Parse(Rule):
    """The file is UTF-8 text that starts with a YAML mapping between two `---` lines.

    Why: a record nobody can parse is invisible to every tool (search, context, consolidation);
    the finding carries YAML's own line and column, or the line of the first bad byte. A BOM and
    CRLF line ends are read cleanly and are not findings.

    Passing: `---` / `updated_at: 2026-04-27T10:00:00+09:00` / `---` / body.
    Failing: an empty file, no opening `---`, no closing `---`, a YAML syntax error, tabs used for
    indentation, duplicate keys, a list or a scalar instead of a mapping, bytes that are not UTF-8,
    a binary file, a directory named `x.md`, a symlink that leaves the workspace.
    """

    code, alias, severity = "parse", "E01", Severity.ERROR

    def check_record(self, rec: ParsedRecord, ctx: Context) -> Iterator[Finding]:
        if rec.parse_error is not None and not rec.refused_yaml and not rec.oversized:  # those are
            # yaml-feature's and too-large's
            yield self.finding(rec.path, rec.parse_line, rec.parse_error)


class MissingField(Rule):
    """Every required field of the record's kind is present (one finding per field).

    Why: the other tools rely on these fields (`sources` for provenance, `status` for what is
    current, `updated_at` for staleness); required fields per kind are listed in spec 1 §3.

    Passing: a request with `created_at`, `updated_at` and `sources`.
    Failing: a decision without `status`.
    """

    code, alias, severity = "missing-field", "E02", Severity.ERROR

    def check_record(self, rec: ParsedRecord, ctx: Context) -> Iterator[Finding]:
        for issue in rec.issues:
            if issue.problem == "missing":
                yield self.finding(rec.path, 1, issue.message, issue.field)


class InvalidField(Rule):
    """Each field has the right type and value (one finding per field): RFC 3339 timestamps with a
    time zone, Sources as `{session_id: <text>, range: [start, end]}` with integers
    `0 <= start <= end`, booleans as `true`/`false`, enums, lists where lists are expected.

    Why: a naive timestamp is ambiguous across machines, an inverted range points at no
    transcript entries, and `"yes"` is not a boolean to every reader. Setting both
    `model_invocation` and its old spelling `model_invokation` is refused: which one wins would be
    a guess.

    Passing: `updated_at: 2026-04-27T10:00:00+09:00`, `range: [3, 18]`.
    Failing: `updated_at: 2026-04-27 10:00:00` (no zone), `range: [5, 2]`, `range: [-1, 4]`,
    `model_invocation: "yes"`, both `model_invocation` and `model_invokation` set.
    """

    code, alias, severity = "invalid-field", "E03", Severity.ERROR

    def check_record(self, rec: ParsedRecord, ctx: Context) -> Iterator[Finding]:
        for issue in rec.issues:
            if issue.problem in ("invalid", "conflict") and not _is_status_value_issue(rec, issue.field):
                yield self.finding(rec.path, issue.line, issue.message, issue.field)


class InvalidStatus(Rule):
    """A decision's `status` is exactly one of `open`, `resolved`, `replaced`.

    Why: tools decide what is current from the status; a near miss such as `Replaced` would
    silently count as neither.

    Passing: `status: resolved`.
    Failing: `status: Replaced` (did you mean `replaced`?), `status: done`.
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

    Why: a replaced decision must say what replaced it (readers follow the link), and a link on a
    decision that is still in force contradicts itself.

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
    """Warning: a top-level field the record's kind does not define, with the field probably meant
    when the name is a near miss.

    Why: humans may add their own fields (tags), so this is not an error; but a typo of a real
    field would otherwise be silently ignored. `id` and `name` are not fields: the file name is
    the slug.

    Passing: only the kind's fields.
    Failing: `replacedby: x` (did you mean `replaced_by`?), `id: ...`.
    """

    code, alias, severity = "unknown-field", "W05", Severity.WARNING

    def check_record(self, rec: ParsedRecord, ctx: Context) -> Iterator[Finding]:
        for issue in rec.issues:
            if issue.problem == "unknown":
                yield self.finding(rec.path, issue.line, issue.message, issue.field)


class DeprecatedField(Rule):
    """Warning: the seeds' spelling `model_invokation` is read as `model_invocation`.

    Why: old records keep working, but new ones should use the current name; setting both is an
    `invalid-field` error.

    Passing: `model_invocation: false`.
    Failing: `model_invokation: false`.
    """

    code, alias, severity = "deprecated-field", "W06", Severity.WARNING

    def check_record(self, rec: ParsedRecord, ctx: Context) -> Iterator[Finding]:
        for issue in rec.issues:
            if issue.problem == "deprecated":
                yield self.finding(rec.path, issue.line, issue.message, issue.field)
