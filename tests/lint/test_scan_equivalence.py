"""Speed-ups of the secret scan and the YAML parser give exactly the plain results."""

from __future__ import annotations

import random

import pytest
import yaml

from memcli import secrets
from memcli.records.parse import loader_class

FRAGMENTS = (
    "password",
    "passwd",
    "PassPhrase",
    "pwd",
    "secret",
    "token",
    "api",
    "api_key",
    "API-KEY",
    "access",
    "accesskey",
    "private_key",
    "client",
    "client_secret",
    "auth",
    "auth-key",
    "account_key",
    "credential",
    "credentials",
    "_key",
    "-key",
    "key",
    "_value",
    "base",
    "--password",
    "--token",
    "--api-key",
    "--client-secret",
    "--",
    "-",
    "_",
    ":",
    "=",
    ":=",
    "=>",
    " ",
    "  ",
    "\n",
    "\t",
    '"',
    "'",
    '\\"',
    "`",
    "s3cr3tPa55w0rd",
    "Xy7!kLm9Qz",
    "AbCdEf123456",
    "${TOKEN}",
    "<redacted>",
    "x",
    "日本語",
    "İ",
)


def _texts(n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(FRAGMENTS) for _ in range(rng.randint(1, 40))) for _ in range(n)]


@pytest.mark.parametrize("pattern", [p for p in secrets._PATTERNS if p.anchors], ids=lambda p: p.kind)
def test_anchored_scan_finds_what_finditer_finds(pattern) -> None:
    regex = secrets._compiled(pattern.source.removeprefix("(?i)"))
    hits = 0
    for text in _texts(3000, seed=len(pattern.kind)):
        lowered = text.lower()
        plain = [m.span() for m in regex.finditer(lowered)]
        anchored = [m.span() for m in secrets._anchored(regex, lowered, pattern.anchors)]
        assert anchored == plain, text
        hits += len(plain)
    assert hits > 50  # the texts do exercise the pattern


def test_every_folded_pattern_match_starts_at_an_anchor() -> None:
    for pattern in secrets._PATTERNS:
        if pattern.anchors:
            assert pattern.folded and all(a == a.lower() for a in pattern.anchors)


DOCS = (
    "a: 1\nb: 0755\nc: 0x1F\nd: 1_000\ne: -3\nf: +4\ng: 1:30\nh: 0\ni: 00\nj: 12abc\n",
    "created_at: 2026-04-27T10:00:00+09:00\nd: 2026-04-27\nt: true\nn: null\nm: ~\nf: 1.5\nx: .inf\n",
    "sources:\n  - session_id: abc\n    range: [3, 18]\n  - {session_id: '1', range: [0, 0]}\n",
    "k: [1, 'x', {y: z}, [], {}]\nl: 'quoted: 1'\nm: |\n  block\n  text\nn: >\n  folded\nyes: no\n",
    "ｋｅｙ: 値\n数: １２\nz: ٣\n",
    "a: 2026-04-27 10:00:00.123456789-05:30\nb: 2026-04-27t10:00:00z\nc: 2026-4-7\nd: 2026-04-27T10:00:00\n",
    "a: [2026-04-27T10:00:00+09:00, 2026-04-27T10:00:00+09:00]\nb: 2026-04-27T10:00:00.5Z\n",
)


@pytest.mark.parametrize("doc", DOCS)
def test_the_remembering_loader_resolves_like_pyyaml(doc: str) -> None:
    for _ in range(2):  # the second time from memory
        loader = loader_class()(doc)
        try:
            ours = loader.get_single_data()
        finally:
            loader.dispose()
        assert ours == yaml.safe_load(doc)
        assert [type(v) for v in ours.values()] == [type(v) for v in yaml.safe_load(doc).values()]


@pytest.mark.parametrize("doc", DOCS)
def test_record_frontmatter_parses_like_pyyaml(doc: str) -> None:
    from memcli.records.parse import parse_record

    expected = yaml.safe_load(doc)
    for _ in range(2):  # the second time with remembered values
        rec = parse_record("memory/x.md", f"---\n{doc}---\nbody\n".encode(), None, None)
        assert rec.meta == expected
        assert [type(v) for v in rec.meta.values()] == [type(v) for v in expected.values()]
        assert [getattr(v, "tzinfo", None) for v in rec.meta.values()] == [
            getattr(v, "tzinfo", None) for v in expected.values()
        ]


@pytest.mark.parametrize(
    "slug",
    ["use-sqlite", "a", "a" * 64, "a" * 65, "abc\n", "-a", "a-", "a--b", "A", "ü", "a_b", "a.b", "", "0-9"],
)
def test_the_slug_fast_path_agrees_with_slug_problem(slug: str, tmp_path) -> None:
    from lint.kit import make_workspace, record

    from memcli.lint.engine import lint
    from memcli.slug import slug_problem
    from memcli.workspace import Workspace

    if "\n" in slug or not slug:  # not a file name a file system takes: check the rule directly
        from memcli.lint.rules.location import InvalidSlug
        from memcli.records.parse import ParsedRecord
        from memcli.workspace import Kind

        found = list(
            InvalidSlug().check_record(ParsedRecord("memory/decisions/x.md", Kind.DECISION, slug), None)
        )
    else:
        root = make_workspace(tmp_path / "ws", {f"memory/decisions/{slug}.md": record("decision")})
        found = [f for f in lint(Workspace.open(root)) if f.code == "invalid-slug"]
    assert bool(found) == (slug_problem(slug) is not None)


def test_one_pass_hint_search_finds_every_hint_substring_search_finds() -> None:
    rng = random.Random(5)
    pieces = [*secrets._ALL_HINTS, "-", "--", "---", "s", "k", "a", "x", "_", ".", ":", "/", " ", "é", "日"]
    seen: set[str] = set()
    for _ in range(4000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 30))).lower()
        expected = {h for h in secrets._ALL_HINTS if h in text}
        assert secrets._hints_in(text) == expected, text
        seen |= expected
    assert seen == set(secrets._ALL_HINTS)
