"""Records: the frontmatter models of every kind and a parser that never raises."""

from __future__ import annotations

from memcli.records.models import MODELS, Source
from memcli.records.parse import FieldIssue, ParsedRecord, parse_record

__all__ = ["MODELS", "FieldIssue", "ParsedRecord", "Source", "parse_record"]
