"""Plain YAML only: what in a frontmatter would make reading it cost more than its size.

A record's frontmatter is a few keys, strings, dates and short lists. YAML can say much more, and
some of it costs far more than the bytes it takes: an alias is a reference, so nine levels of
anchors each aliased nine times ("billion laughs") is 600 bytes that any walk over the loaded value
(the record store's codec, validation, a dump) expands to 9^9 nodes; explicit tags build types no
record has; merge keys (`<<`) copy mappings; and the C composer recurses once per nesting level,
so 100 000 `[` crash the process. None of this has a place in a record, so `refusal` finds it in
YAML's token stream — libyaml's scanner keeps no recursion and builds nothing — before anything is
composed, and the readers refuse such a frontmatter instead of loading it (lint rule
`yaml-feature`, E22).

A frontmatter holding none of `& * ! ? <<`, no compact nested sequence (`- -`), few brackets and
no deep indentation cannot hold any of it either, and is passed without scanning (a scan costs
about half a parse).

Every other reader of YAML a user or an agent wrote (SKILL.md files, rule files' frontmatter,
Copilot's workspace.yaml, a merge's sides) loads it with `load`, which raises `Refused` (one line)
for the same things.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

MAX_DEPTH = 100  # collections inside collections; a record needs 4
REFUSED = "plain YAML only: "  # how every refusal's message starts (memcli.records.parse)

# What can start an anchor, alias, tag, complex key, merge key or compact nesting; or indentation
# of 24 columns. Without any of these, and with at most _BRACKETS brackets, nesting stays below
# 2 * 24 + 2 + _BRACKETS < MAX_DEPTH, so the fast path never passes what a scan would refuse.
_RISKY = re.compile(r"[&*!?]|<<|-[ \t]+-|(?:^|\n) {24}")
_BRACKETS = 32


class Refusal(NamedTuple):
    message: str  # one line, starting with REFUSED
    line: int  # 1-based line in the frontmatter text scanned


class Refused(ValueError):
    """YAML holding an anchor, alias, tag, merge key or over-deep nesting; str() is one line."""

    def __init__(self, found: Refusal) -> None:
        super().__init__(found.message)
        self.line = found.line


def load(text: str) -> Any:
    """`yaml.safe_load(text)` for plain YAML only: raises `Refused` where `refusal` finds something,
    and yaml.YAMLError for a syntax error, as safe_load does."""
    found = refusal(text)
    if found is not None:
        raise Refused(found)
    import yaml  # here: as in _scan

    return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))  # a safe loader


def _plain(front: str) -> bool:
    return _RISKY.search(front) is None and front.count("[") + front.count("{") <= _BRACKETS


def refusal(front: str) -> Refusal | None:
    """The first anchor, alias, explicit tag, merge key or over-deep nesting in `front`, or None.

    A YAML syntax error ends the scan with None: what came before it was checked, and the loader
    reports the error itself."""
    return None if _plain(front) else _scan(front)


def _scan(front: str) -> Refusal | None:
    import yaml  # here: a plain frontmatter needs no scanner

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)(front)
    opens = (yaml.FlowSequenceStartToken, yaml.FlowMappingStartToken, yaml.BlockSequenceStartToken,
             yaml.BlockMappingStartToken)
    closes = (yaml.FlowSequenceEndToken, yaml.FlowMappingEndToken, yaml.BlockEndToken)
    depth = 0
    after_key = False
    try:
        while True:
            token = loader.get_token()
            if token is None or isinstance(token, yaml.StreamEndToken):
                return None
            kind = type(token)
            line = token.start_mark.line + 1
            if kind is yaml.AnchorToken:
                return Refusal(f"{REFUSED}a YAML anchor (&{token.value}); write the value out where "
                               "it is used", line)
            if kind is yaml.AliasToken:
                return Refusal(f"{REFUSED}a YAML alias (*{token.value}); write the value out instead "
                               "of referring to it", line)
            if kind is yaml.TagToken:
                handle, suffix = token.value
                return Refusal(f"{REFUSED}an explicit YAML tag ({handle or ''}{suffix}); remove it "
                               "(quote a value to make it text)", line)
            if after_key and kind is yaml.ScalarToken and token.plain and token.value == "<<":
                return Refusal(f"{REFUSED}a YAML merge key (<<); write the keys out", line)
            if kind in opens:
                depth += 1
                if depth > MAX_DEPTH:
                    return Refusal(f"{REFUSED}collections nested more than {MAX_DEPTH} levels deep; "
                                   "a record's fields are a flat mapping", line)
            elif kind in closes:
                depth -= 1
            after_key = kind is yaml.KeyToken
    except yaml.YAMLError:
        return None
    finally:
        loader.dispose()
