"""One version of a record as the merge sees it: its frontmatter fields, each with the exact lines
it was written in (so a merged file keeps each side's own formatting), and its body."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import yaml

from memcli.plainyaml import refusal
from memcli.recordtext import decode, split

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class Unreadable(Exception):
    """This version cannot be merged field by field (the message says why)."""


@dataclass
class Side:
    present: bool  # False: the file is absent on this side (deleted, or not yet added)
    bom: bool = False
    crlf: bool = False
    preamble: list[str] = field(default_factory=list)  # frontmatter lines before the first key
    values: dict[str, Any] = field(default_factory=dict)
    spans: dict[str, list[str]] = field(default_factory=dict)  # key → its lines, comments after it too
    body: str = ""
    text: str = ""  # the whole decoded file (LF line ends, no BOM)

    @property
    def keys(self) -> list[str]:
        return list(self.spans)


def read_side(data: bytes) -> Side:
    """The version in `data` (b"" means absent). Raises `Unreadable`."""
    if not data:
        return Side(present=False)
    text, error, _ = decode(data)
    if text is None:
        raise Unreadable(error)
    parts = split(text)
    if isinstance(parts, str):
        raise Unreadable(parts)
    front, body, _ = parts
    side = Side(present=True, bom=data.startswith(b"\xef\xbb\xbf"), crlf=b"\r\n" in data, body=body,
                text=text)
    lines = front.split("\n")
    refused = refusal(front)  # before composing: a merge compares and writes out the values
    if refused is not None:
        raise Unreadable(refused.message)
    loader = _Loader(front)
    try:
        node = loader.get_single_node()
        if node is None:
            side.preamble = lines if front else []
            return side
        if not isinstance(node, yaml.MappingNode):
            raise Unreadable("the frontmatter is not a mapping of fields")
        starts: list[tuple[str, int]] = []
        for key_node, _value in node.value:
            if not isinstance(key_node, yaml.ScalarNode) or key_node.tag != "tag:yaml.org,2002:str":
                raise Unreadable("a frontmatter key is not plain text")
            if key_node.start_mark.column != 0:
                raise Unreadable("the frontmatter is not a block mapping")
            if any(k == key_node.value for k, _ in starts):
                raise Unreadable(f"duplicate key {key_node.value!r}")
            starts.append((key_node.value, key_node.start_mark.line))
        values = loader.construct_document(node)
    except yaml.YAMLError as exc:
        raise Unreadable(f"YAML error: {str(exc).splitlines()[0]}") from None
    except (ValueError, OverflowError) as exc:  # an impossible date and the like
        raise Unreadable(f"YAML error: {exc}") from None
    finally:
        loader.dispose()
    side.values = values
    side.preamble = lines[: starts[0][1]] if starts else list(lines)
    ends = [line for _, line in starts[1:]] + [len(lines)]
    for (key, start), end in zip(starts, ends, strict=True):
        span = lines[start:end]
        while len(span) > 1 and not span[-1].strip():
            span.pop()  # a blank line before the next key is not part of this field
        side.spans[key] = span
    return side
