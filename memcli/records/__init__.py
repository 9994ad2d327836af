"""Records: the frontmatter models of every kind and a parser that never raises.

The names below are loaded on first use: a reader that only needs `memcli.records.facts` (the
record store on a warm start) does not pay for the models and the YAML parser.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memcli.records.models import MODELS, Source
    from memcli.records.parse import FieldIssue, ParsedRecord, parse_record

__all__ = ["MODELS", "FieldIssue", "ParsedRecord", "Source", "parse_record"]
_HOMES = {"MODELS": "models", "Source": "models", "FieldIssue": "parse", "ParsedRecord": "parse",
          "parse_record": "parse"}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'memcli.records' has no attribute {name!r}")

    return getattr(importlib.import_module(f"memcli.records.{home}"), name)
