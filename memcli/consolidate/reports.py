"""The knowledge-candidate report and the gc-report, compact and capped, for an input laid out
within a context budget (memcli.consolidate.plan).

Pretty-printed JSON spends a line per field: a report naming 150 Sources is ~30k tokens so, ~5k as
one line per element. When even that is over the cap, the tail of the longest lists is left out
and the report says how many (`<list>_left_out`): nothing is dropped without a count. A knowledge
Source left out of the shown report is still accepted by the tools (they check the whole report),
and the next run's gc-report names again whatever was not shown.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any


def _lines(report: dict[str, Any], shown: dict[str, int]) -> str:
    parts = []
    for key, value in report.items():
        if isinstance(value, list) and key in shown:
            items = [json.dumps(v, ensure_ascii=False) for v in value[: shown[key]]]
            body = ("[\n  " + ",\n  ".join(items) + "\n ]") if items else "[]"
            parts.append(f' "{key}": {body}')
            if shown[key] < len(value):
                parts.append(f' "{key}_left_out": {len(value) - shown[key]}')
        else:
            parts.append(f" {json.dumps(key)}: {json.dumps(value, ensure_ascii=False)}")
    return "{\n" + ",\n".join(parts) + "\n}\n"


def compact(report: dict[str, Any], cap: int, count: Callable[[str], int]) -> tuple[str, int]:
    """`report` as JSON with one line per list element, within `cap` tokens when leaving out list
    tails can make it so; returns the text and how many elements were left out."""
    shown = {k: len(v) for k, v in report.items() if isinstance(v, list)}
    text = _lines(report, shown)
    while count(text) > cap and any(shown.values()):
        longest = max(shown, key=lambda k: shown[k])
        over = count(text) - cap
        # drop about as many elements as the overshoot needs (never fewer than one), then re-measure
        per = max(1, count(text) // max(1, sum(shown.values())))
        shown[longest] = max(0, shown[longest] - max(1, over // per))
        text = _lines(report, shown)
    left = sum(len(report[k]) - n for k, n in shown.items())
    return text, left
