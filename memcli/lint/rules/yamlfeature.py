"""A record's frontmatter is plain YAML: no anchors, aliases, explicit tags, merge keys or deep
nesting (memcli.plainyaml finds them from YAML's token stream, before anything is built)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from memcli.lint.finding import Finding, Severity
from memcli.lint.rules.base import Context, Rule

if TYPE_CHECKING:
    from memcli.records.parse import ParsedRecord


class YamlFeature(Rule):
    """The frontmatter holds no YAML anchor (`&a`), alias (`*a`), explicit tag (`!!str`,
    `!custom`), merge key (`<<:`), and no collections nested more than 100 levels deep. Such a
    frontmatter is not read: the record is invalid to every reader (search, context, gc-report,
    MCP) until it is written out plainly, and the write tools refuse it.

    Why: none of this has a place in a record, and some of it costs far more than its size: nine
    levels of anchors each aliased nine times ("billion laughs") is 600 bytes that expand to
    387 million values, and 100 000 `[` crash YAML's composer. A model or a pasted file must not
    be able to plant a record that hangs every later command, the commit hook included.

    Passing: `tags: [cache, sqlite]`.
    Failing: `base: &b {x: 1}` / `copy: *b`; `<<: *b`; `when: !!timestamp 2026-04-27`.
    """

    code, alias, severity = "yaml-feature", "E22", Severity.ERROR

    def check_record(self, rec: ParsedRecord, ctx: Context) -> Iterator[Finding]:
        if rec.refused_yaml:
            yield self.finding(rec.path, rec.parse_line, rec.parse_error or "")
