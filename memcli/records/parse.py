"""Parse a record file into frontmatter, body and field issues — never raising.

Every way a file can be wrong (not UTF-8, binary, no frontmatter, YAML errors, duplicate keys, a
list instead of a mapping, wrong field types) becomes data on the `ParsedRecord`, so the Linter can
turn it into findings and go on with the other files. BOM and CRLF line ends are read cleanly.
"""

from __future__ import annotations

import datetime as dt
import functools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from memcli.plainyaml import REFUSED, refusal
from memcli.records.fields import FIELD_ALIASES, FIELDS, plainly_valid
from memcli.recordtext import OVERSIZED
from memcli.recordtext import decode as _decode
from memcli.recordtext import split as _split
from memcli.values import frozen
from memcli.workspace import Kind

if TYPE_CHECKING:
    import yaml  # here: reading raw values from the store needs no YAML parser

_RESOLVED: dict[tuple[Any, Any, Any], str] = {}
_RESOLVED_MAX = 50_000


@functools.cache
def loader_class() -> type:
    """The safe loader (libyaml's when built), remembering how plain scalars resolve
    (`created_at`, `true`, `[3, 18]`...).

    The parser asks the Python resolver for the tag of every node, and the answer depends only on
    (node kind, text, implicit flags) while no path resolvers are registered (none are), so keys
    and recurring values of thousands of records are resolved once instead of once each. Built
    on first use: the commit hook's warm lint parses no record and need not import PyYAML.
    """
    import yaml  # here: see the docstring

    class _Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
        def resolve(self, kind: Any, value: Any, implicit: Any) -> str:
            if self.yaml_path_resolvers:
                return super().resolve(kind, value, implicit)
            key = (kind, value, implicit)
            tag = _RESOLVED.get(key)
            if tag is None:
                tag = super().resolve(kind, value, implicit)
                if len(_RESOLVED) < _RESOLVED_MAX:
                    _RESOLVED[key] = tag
            return tag

    return _Loader


@frozen
class FieldIssue:
    field: str  # top-level frontmatter key
    problem: str  # "missing" | "invalid" | "unknown" | "deprecated" | "conflict"
    message: str
    line: int | None


# What reading the frontmatter's YAML gave: (value, top-level key → line, error, error line). The
# record store keeps it where the full YAML parser made it, so a record whose bytes did not change
# is rebuilt without composing its YAML again.
Loaded = tuple[Any, dict[str, int], str | None, int | None]


@dataclass
class ParsedRecord:
    path: str
    kind: Kind | None
    slug: str | None
    text: str = ""
    body: str = ""
    meta: dict[str, Any] | None = None  # None when the frontmatter could not be read
    parse_error: str | None = None
    parse_line: int | None = None
    key_lines: dict[str, int] = field(default_factory=dict)
    issues: list[FieldIssue] = field(default_factory=list)
    loaded: Loaded | None = field(default=None, repr=False, compare=False)  # see Loaded
    # The plain reader read the YAML (memcli.records.fastyaml): reading it again costs less than
    # keeping what it gave (the record store keeps only what the full YAML parser gave).
    plain_yaml: bool = field(default=False, repr=False, compare=False)
    # The validated model, or the values a plainly valid frontmatter gives it (see `model`).
    _model: Any = field(default=None, init=False, repr=False, compare=False)
    _values: dict[str, Any] | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def ok(self) -> bool:
        return self.parse_error is None

    @property
    def refused_yaml(self) -> bool:
        """Whether the frontmatter was not read for YAML a record has no use for (anchors,
        aliases, tags, merge keys, deep nesting: memcli.plainyaml): lint rule yaml-feature."""
        return self.parse_error is not None and self.parse_error.startswith(REFUSED)

    @property
    def oversized(self) -> bool:
        """Whether the file was not read for being larger than any record (memcli.recordtext,
        MAX_FILE_BYTES): lint rule too-large."""
        return self.parse_error == OVERSIZED

    @property
    def valid(self) -> bool:
        """Whether the frontmatter validated against its kind's model (False when not validated)."""
        return self._model is not None or self._values is not None

    @property
    def model(self) -> Any:
        """The validated pydantic model when the frontmatter is valid, else None. A frontmatter
        that fields.plainly_valid passed was validated without pydantic: its model is built (and
        pydantic loaded) when a reader first asks for it, which the Linter never does."""
        if self._model is None and self._values is not None:
            from memcli.records.models import MODELS  # here: pydantic only for a reader of the model

            assert self.kind is not None
            self._model = MODELS[self.kind].model_validate(self._values)
        return self._model

    def line_of(self, key: str) -> int | None:
        return self.key_lines.get(key)


def _walk_lines(node: yaml.Node) -> tuple[dict[str, int], list[tuple[str, int]]]:
    """Top-level key → line (1-based, in file), and (message, line) of each duplicate key."""
    import yaml  # here: PyYAML only when a record is parsed (loader_class says why)

    lines: dict[str, int] = {}
    duplicates: list[tuple[str, int]] = []
    if isinstance(node, yaml.MappingNode):
        for key_node, _ in node.value:
            key = key_node.value if isinstance(key_node, yaml.ScalarNode) else str(key_node.value)
            line = key_node.start_mark.line + 2  # +1 for 1-based, +1 for the opening '---'
            if key in lines:
                duplicates.append((f"duplicate key {key!r} on lines {lines[key]} and {line}; keep one", line))
            else:
                lines[key] = line
    return lines, duplicates


def _load_yaml(front: str) -> tuple[Loaded, bool]:
    """(what reading the YAML of `front` gave, whether the plain reader read it: see fastyaml)."""
    from memcli.records import fastyaml  # here: PyYAML only when a record is parsed (loader_class)

    plain = fastyaml.read_plain(front)
    if plain is not None:
        return (plain[0], plain[1], None, None), True
    return _load_full(front), False


def _load_full(front: str) -> Loaded:
    """What PyYAML's reading of `front` gives, for the frontmatter the plain reader does not read."""
    import yaml  # here: (loader_class says why)

    from memcli.records import fastyaml  # here: with PyYAML

    refused = refusal(front)
    if refused is not None:  # never composed: an alias bomb or 100 000 `[` cost their size only
        return None, {}, refused.message, refused.line + 1
    loader = loader_class()(front)
    try:
        node = loader.get_single_node()
        if node is None:
            return {}, {}, None, None
        key_lines, duplicates = _walk_lines(node)
        if duplicates:  # YAML would silently keep the last value: refuse instead
            return None, key_lines, "; ".join(m for m, _ in duplicates), duplicates[0][1]
        try:
            data = fastyaml.construct(loader, node)
        except fastyaml.Unsupported:
            data = loader.construct_document(node)
        return data, key_lines, None, None
    except fastyaml.BadValue as exc:
        line = exc.line + 2 if exc.line is not None else None
        return None, key_lines, f"YAML error on line {line}: impossible value ({exc})", line
    except (ValueError, OverflowError) as exc:  # the same from the full constructor
        return None, {}, f"YAML error: impossible value ({exc})", None
    except yaml.MarkedYAMLError as exc:
        message, line = _yaml_message(exc)
        return None, {}, message, line
    except yaml.YAMLError as exc:  # e.g. a reader error on a control character
        return None, {}, f"YAML error: {exc}", None
    finally:
        loader.dispose()


_OPENERS = {"flow sequence": ("[", "]"), "flow mapping": ("{", "}"), "quoted scalar": ("quote", "quote")}


def _yaml_message(exc: yaml.MarkedYAMLError) -> tuple[str, int | None]:
    """The parser's words plus the likely fix. An unclosed bracket or quote is reported on the line
    where it opened (the parser only notices lines later, where the next key starts)."""
    mark = exc.problem_mark or exc.context_mark
    line = mark.line + 2 if mark else None  # +1 for 1-based, +1 for the opening `---`
    col = f", column {mark.column + 1}" if mark else ""
    what = " ".join(p for p in (exc.context, exc.problem) if p)
    opened = next((v for k, v in _OPENERS.items() if k in (exc.context or "")), None)
    if opened and exc.context_mark is not None and line is not None:
        start = exc.context_mark.line + 2
        if start < line:
            opener, closer = opened
            fix = f"close the {opener} with {closer}" if opener != "quote" else "close the quote"
            return (f"YAML error on line {start}: a {opener} opened here is never closed (the parser "
                    f"stopped on line {line}{col}: {what}); {fix}"), start
    if "mapping values are not allowed" in (exc.problem or ""):
        return (f"YAML error on line {line}{col}: {what}; a value that contains ': ' must be quoted, "
                'e.g. title: "Cache: per-user"'), line
    return f"YAML error on line {line}{col}: {what}", line


def _near_miss(key: str, known: set[str]) -> str | None:
    from rapidfuzz import process  # here: only an unknown key needs it
    from rapidfuzz.distance import Levenshtein

    match = process.extractOne(
        key.lower(), sorted(known), scorer=Levenshtein.distance, score_cutoff=max(2, len(key) // 4)
    )
    return match[0] if match else None


def _shown(value: Any) -> str:
    """The offending value, briefly, for a message (`(got ...)`), or nothing for containers."""
    if value is None or isinstance(value, (dict, list, tuple)):
        return ""
    if isinstance(value, (dt.date, dt.datetime)):
        return f" (got {value.isoformat(sep=' ') if isinstance(value, dt.datetime) else value.isoformat()})"
    text = repr(value)
    return f" (got {text[:60] + '...' if len(text) > 60 else text})"


def _validate(rec: ParsedRecord, meta: dict[str, Any]) -> None:
    assert rec.kind is not None
    known = set(FIELDS[rec.kind])
    values: dict[str, Any] = {}
    for key, value in meta.items():
        key_s = str(key)
        line = rec.key_lines.get(key_s)
        target = FIELD_ALIASES.get(key_s)
        if target in known:
            if target in meta:
                rec.issues.append(
                    FieldIssue(
                        key_s,
                        "conflict",
                        f"both {target!r} and {key_s!r} are set; keep only {target!r}",
                        line,
                    )
                )
                continue
            rec.issues.append(
                FieldIssue(
                    key_s, "deprecated", f"{key_s!r} is the old spelling; rename it to {target!r}", line
                )
            )
            rec.key_lines.setdefault(target, line or 0)
            values[target] = value
        elif key_s in known:
            values[key_s] = value
        elif key_s in ("id", "name"):
            rec.issues.append(
                FieldIssue(
                    key_s, "unknown", f"{key_s!r} is not a frontmatter field: the file name is the slug", line
                )
            )
        else:
            guess = _near_miss(key_s, known)
            hint = f"; did you mean {guess!r}?" if guess else " (kept; memcli ignores it)"
            rec.issues.append(FieldIssue(key_s, "unknown", f"unknown field {key_s!r}{hint}", line))
    if plainly_valid(rec.kind, values):
        rec._values = values
        return
    # The models (pydantic behind them) load with the first record that is not plainly valid:
    # the commit hook linting a valid record it just edited needs neither.
    from pydantic import ValidationError  # here: the commit path on a valid record needs none

    from memcli.records.models import MODELS  # here: (as pydantic)

    try:
        rec._model = MODELS[rec.kind].model_validate(values)
    except ValidationError as exc:
        seen: set[str] = set()
        for err in exc.errors():
            loc = err["loc"]
            top = str(loc[0]) if loc else "(frontmatter)"
            if top in seen:  # one finding per field
                continue
            seen.add(top)
            if err["type"] == "missing":
                rec.issues.append(FieldIssue(top, "missing", f"required field {top!r} is missing", None))
                continue
            where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in loc[1:])
            msg = err["msg"].removeprefix("Value error, ")
            if err["type"] == "string_type" and isinstance(err.get("input"), (int, float, bool)):
                msg += "; quote the value to make it text"
            shown = _shown(err.get("input"))
            rec.issues.append(
                FieldIssue(top, "invalid", f"{top}{where}: {msg}{shown}", rec.key_lines.get(top))
            )


def parse_record(
    path: str, data: bytes, kind: Kind | None, slug: str | None, *, validate: bool = True,
    loaded: Loaded | None = None,
) -> ParsedRecord:
    """The record in `data`; with `validate=False` only read (frontmatter, body, key lines), no
    field checks: for callers that only need a few raw values, e.g. the reference rules.

    `loaded`: what an earlier parse of these same bytes kept as `rec.loaded`; the YAML is then not
    read again, and the record comes out equal to that parse (memcli.store)."""
    rec = ParsedRecord(path, kind, slug)
    text, error, line = _decode(data)
    if text is None:
        rec.parse_error, rec.parse_line = error, line
        return rec
    rec.text = text
    split = _split(text)
    if isinstance(split, str):
        rec.parse_error = split
        rec.parse_line = 1
        return rec
    front, rec.body, _ = split
    if loaded is None:
        loaded, rec.plain_yaml = _load_yaml(front)
    rec.loaded = loaded
    meta, key_lines, error, line = loaded
    rec.key_lines = dict(key_lines)  # validation adds aliases' lines; the kept answer stays as read
    if error is not None:
        rec.parse_error, rec.parse_line = error, line
        return rec
    if not isinstance(meta, dict):
        what = "a list" if isinstance(meta, list) else f"a {type(meta).__name__} value"
        rec.parse_error = f"the frontmatter is {what}; it must be a mapping of fields (key: value)"
        rec.parse_line = 2
        return rec
    rec.meta = meta
    if kind is not None and validate:
        _validate(rec, meta)
    return rec
