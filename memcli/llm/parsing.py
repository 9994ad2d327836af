"""Reading a model's structured answer: the JSON object in it, and why it did not validate."""

from __future__ import annotations

import json
from typing import Any

from pydantic import ValidationError


def extract_json(text: str) -> Any:
    """The JSON object in a model answer, tolerating prose and code fences around it."""
    stripped = text.strip()
    try:
        return json.loads(stripped)
    except ValueError:
        pass
    decoder = json.JSONDecoder()
    pos = stripped.find("{")
    while pos != -1:
        try:
            obj, _ = decoder.raw_decode(stripped, pos)
        except ValueError:
            pos = stripped.find("{", pos + 1)
            continue
        if isinstance(obj, dict):
            return obj
        pos = stripped.find("{", pos + 1)
    raise ValueError("the answer holds no JSON object")


def describe_invalid(exc: Exception) -> str:
    """A short, one-line account of why an answer failed validation."""
    if isinstance(exc, ValidationError):
        parts = [f"{'.'.join(str(p) for p in e['loc']) or '(root)'}: {e['msg']}" for e in exc.errors()[:3]]
        more = exc.error_count() - 3
        return "; ".join(parts) + (f" (+{more} more)" if more > 0 else "")
    return str(exc)[:200]
