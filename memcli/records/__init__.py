"""Records: the frontmatter models of every kind and a parser that never raises.

The names below are loaded on first use: a reader that only needs `memcli.records.facts` (the
record store on a warm start) does not pay for the models and the YAML parser.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from memcli.lazy import lazy_exports

if TYPE_CHECKING:
    from memcli.records.models import MODELS, Source
    from memcli.records.parse import FieldIssue, ParsedRecord, parse_record

__all__ = ["MODELS", "FieldIssue", "ParsedRecord", "Source", "parse_record"]
__getattr__, __dir__ = lazy_exports(__name__, {
    "MODELS": "models", "Source": "models", "FieldIssue": "parse", "ParsedRecord": "parse",
    "parse_record": "parse",
})
