"""Size caps (errors) and bloat signals (warnings)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from memcli.lint.finding import Finding, Severity
from memcli.lint.rules.base import Context, Rule
from memcli.records.fields import record_sources
from memcli.tokens import EstimateCounter
from memcli.workspace import Kind

if TYPE_CHECKING:
    from memcli.records.parse import ParsedRecord

_CAPPED = (Kind.DECISION, Kind.REQUEST, Kind.KNOWLEDGE)
_SOURCED = (Kind.DECISION, Kind.REQUEST, Kind.KNOWLEDGE)


class TooLarge(Rule):
    """`memory/summary.md` stays within 20 000 characters and 5 000 estimated tokens; a decision,
    request or knowledge body within 8 000 characters (config `lint.summary_max_chars`,
    `lint.summary_max_tokens` (1 000–5 000), `lint.body_max_chars`). Tokens are memcli's estimate:
    one per 3 ASCII characters, 1.5 per other character, so a Japanese summary meets the cap at
    about 3 300 characters. A file over 1 MiB (1 048 576 bytes) is not read at all, by the Linter
    or any other reader: it is this finding alone.

    Why: records are read whole into agent context; an oversized one crowds out everything else
    and is usually several records in one. The summary is in every session, so its cap is in tokens.

    Passing: an 8 000-character decision body; a 12 000-character English summary (4 000 tokens).
    Failing: an 8 001-character knowledge body (split it), a 50 MB file, a 4 000-character
    Japanese summary (6 000 tokens).
    """

    code, alias, severity = "too-large", "E10", Severity.ERROR

    def check_record(self, rec: ParsedRecord, ctx: Context) -> Iterator[Finding]:
        if rec.oversized:  # a file past 1 MiB is not read at all (memcli.recordtext.MAX_FILE_BYTES)
            yield self.finding(rec.path, None, rec.parse_error or "")
            return
        if not rec.ok:
            return
        if rec.kind is Kind.SUMMARY:
            tokens, cap_tokens = EstimateCounter().count(rec.text), ctx.config.summary_max_tokens
            if tokens > cap_tokens:
                yield self.finding(rec.path, None, f"summary.md is about {tokens} tokens, over the cap of "
                                   f"{cap_tokens} (lint.summary_max_tokens); compress it")
                return
            size, cap, what = len(rec.text), ctx.config.summary_max_chars, "summary.md"
        elif rec.kind in _CAPPED:
            size, cap, what = len(rec.body), ctx.config.body_max_chars, f"the {rec.kind} body"
        else:
            return
        if size > cap:
            yield self.finding(
                rec.path, None, f"{what} has {size} characters, over the cap of {cap}; trim it or split it"
            )


class DescriptionTooLong(Rule):
    """A knowledge record loaded into every session (`model_invocation: true`) keeps its
    `description` within 1 024 characters (config `lint.description_max_chars`).

    Why: model-invoked descriptions are put into every agent session's context; a long one costs
    tokens in every session whether it is used or not.

    Passing: a one-line description.
    Failing: a 1 025-character description with `model_invocation: true`.
    """

    code, alias, severity = "description-too-long", "E09", Severity.ERROR

    def check_record(self, rec: ParsedRecord, ctx: Context) -> Iterator[Finding]:
        if rec.kind is not Kind.KNOWLEDGE or rec.meta is None:
            return
        invoked = rec.meta.get("model_invocation", rec.meta.get("model_invokation"))
        description = rec.meta.get("description")
        cap = ctx.config.description_max_chars
        if invoked is True and isinstance(description, str) and len(description) > cap:
            yield self.finding(
                rec.path,
                rec.line_of("description"),
                f"description has {len(description)} characters, over {cap} for a model-invoked "
                "record; say what it is and when to use it in one short sentence",
                "description",
            )


class LowValueLarge(Rule):
    """Warning: a long record backed by a single Source (body > 1 500 characters with exactly one
    Source; config `lint.low_value_body_chars`, `lint.low_value_max_sources`).

    Why: much text from one short exchange is usually padding; trim it to what matters.

    Passing: a 1 501-character decision with two Sources.
    Failing: a 1 501-character decision with one Source.
    """

    code, alias, severity = "low-value-large", "W01", Severity.WARNING

    def check_record(self, rec: ParsedRecord, ctx: Context) -> Iterator[Finding]:
        if rec.kind not in _SOURCED or rec.meta is None:
            return
        n = len(record_sources(rec.kind, rec.meta))
        if 1 <= n <= ctx.config.low_value_max_sources and len(rec.body) > ctx.config.low_value_body_chars:
            yield self.finding(
                rec.path,
                None,
                f"body has {len(rec.body)} characters backed by {n} Source; trim it to what matters",
            )


class SourcesOverflow(Rule):
    """Warning: a record carries more than 10 Sources (config `lint.sources_overflow`).

    Why: Sources pile up as a record is updated; past a handful, keep the ones that still
    support the text, or split the record.

    Passing: 10 Sources.
    Failing: 11 Sources.
    """

    code, alias, severity = "sources-overflow", "W02", Severity.WARNING

    def check_record(self, rec: ParsedRecord, ctx: Context) -> Iterator[Finding]:
        if rec.kind not in _SOURCED or rec.meta is None:
            return
        key = "last_sources" if rec.kind is Kind.KNOWLEDGE else "sources"
        n = len(record_sources(rec.kind, rec.meta))
        if n > ctx.config.sources_overflow:
            yield self.finding(
                rec.path,
                rec.line_of(key),
                f"{n} Sources, more than {ctx.config.sources_overflow}; trim old ones or split the record",
                key,
            )
