"""The merge driver on crafted three-way cases: every field kind, encodings, deleted and broken sides."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from memcli.merge.driver import merge
from memcli.recordtext import decode, split

DEC = "memory/decisions/use-sqlite.md"
KNOW = "knowledge/wal-mode.md"


def rec(*, created="2026-04-18T09:00:00+09:00", updated="2026-04-18T09:00:00+09:00", status="open",
        replaced_by=None, sources=(("s1", 2, 9),), body="Use SQLite.\n\nWhy: one file.\n", extra="") -> bytes:
    lines = ["---", f"created_at: {created}", f"updated_at: {updated}", f"status: {status}"]
    if replaced_by:
        lines.append(f"replaced_by: {replaced_by}")
    lines.append("sources:")
    for sid, start, end in sources:
        lines += [f"  - session_id: {sid}", f"    range: [{start}, {end}]"]
    if extra:
        lines.append(extra)
    return ("\n".join([*lines, "---"]) + "\n" + body).encode("utf-8")


def meta_body(data: bytes) -> tuple[dict, str]:
    text, error, _ = decode(data)
    assert error is None
    parts = split(text)
    assert not isinstance(parts, str), parts
    return yaml.safe_load(parts[0]), parts[1]


def srcs(meta: dict, key: str = "sources") -> list[tuple[str, int, int]]:
    return [(s["session_id"], *s["range"]) for s in meta[key]]


def test_sources_are_the_union_in_stable_order_without_duplicates() -> None:
    base = rec()
    ours = rec(sources=(("s1", 2, 9), ("s2", 0, 4), ("s3", 1, 1)))
    theirs = rec(sources=(("s1", 2, 9), ("s3", 1, 1), ("日本語セッション", 5, 7)))
    out = merge(base, ours, theirs, DEC)
    assert out.clean, out.why
    meta, _ = meta_body(out.data)
    assert srcs(meta) == [("s1", 2, 9), ("s2", 0, 4), ("s3", 1, 1), ("日本語セッション", 5, 7)]


def test_a_side_that_dropped_a_source_does_not_drop_it() -> None:
    base = rec(sources=(("s1", 2, 9), ("s2", 0, 4)))
    ours = rec(sources=(("s2", 0, 4),))  # ours removed s1
    theirs = rec(sources=(("s1", 2, 9), ("s2", 0, 4), ("s3", 3, 3)))
    meta, _ = meta_body(merge(base, ours, theirs, DEC).data)
    assert set(srcs(meta)) == {("s1", 2, 9), ("s2", 0, 4), ("s3", 3, 3)}


def test_created_earliest_updated_latest() -> None:
    base = rec()
    ours = rec(created="2026-04-17T23:00:00Z", updated="2026-04-19T09:00:00+09:00")
    theirs = rec(created="2026-04-18T07:00:00+09:00", updated="2026-04-20T01:00:00Z")
    out = merge(base, ours, theirs, DEC)
    assert out.clean, out.why
    text = out.data.decode()
    assert "created_at: 2026-04-18T07:00:00+09:00" in text  # 2026-04-17T22:00Z, before 23:00Z
    assert "updated_at: 2026-04-20T01:00:00Z" in text


@pytest.mark.parametrize("ours_status, theirs_status", [("resolved", "replaced"), ("replaced", "resolved"),
                                                        ("replaced", "open")])
def test_replaced_with_its_replaced_by_wins(ours_status: str, theirs_status: str) -> None:
    def side(status: str) -> bytes:
        return rec(status=status, replaced_by="use-postgres" if status == "replaced" else None)

    out = merge(rec(status="open"), side(ours_status), side(theirs_status), DEC)
    assert out.clean, out.why
    meta, _ = meta_body(out.data)
    assert meta["status"] == "replaced" and meta["replaced_by"] == "use-postgres"


def test_two_different_replacements_conflict() -> None:
    out = merge(rec(), rec(status="replaced", replaced_by="use-postgres"),
                rec(status="replaced", replaced_by="use-duckdb"), DEC)
    assert not out.clean
    text = out.data.decode()
    assert "<<<<<<< ours\nreplaced_by: use-postgres\n=======\nreplaced_by: use-duckdb\n>>>>>>> theirs" in text


def test_scalar_changed_on_one_side_takes_that_side_both_sides_conflict() -> None:
    def know(description: str, invocation: str = "true") -> bytes:
        return (f"---\ncreated_at: 2026-04-18T09:00:00+09:00\nupdated_at: 2026-04-18T09:00:00+09:00\n"
                f"kind: howto\ndescription: {description}\nmodel_invocation: {invocation}\n"
                "user_invocable: false\nlast_sources: []\n---\nBody.\n").encode()

    one = merge(know("old"), know("old", "false"), know("new text"), KNOW)
    assert one.clean, one.why
    meta, _ = meta_body(one.data)
    assert meta["description"] == "new text" and meta["model_invocation"] is False
    both = merge(know("old"), know("ours text"), know("theirs text"), KNOW)
    assert not both.clean and "description" in both.why[0]
    assert b"description: ours text\n=======\ndescription: theirs text" in both.data


def test_a_field_added_by_one_side_is_kept_and_one_removed_is_removed() -> None:
    base = rec(extra="note: old")
    out = merge(base, rec(), rec(extra="note: old\ntags: [db]"), DEC)
    assert out.clean, out.why
    meta, _ = meta_body(out.data)
    assert "note" not in meta and meta["tags"] == ["db"]


def test_body_merges_three_way() -> None:
    base = rec(body="one\ntwo\nthree\nfour\nfive\n")
    ours = rec(body="ONE\ntwo\nthree\nfour\nfive\n")
    theirs = rec(body="one\ntwo\nthree\nfour\nFIVE\n", sources=(("s1", 2, 9), ("s2", 1, 2)))
    out = merge(base, ours, theirs, DEC)
    assert out.clean, out.why
    meta, body = meta_body(out.data)
    assert body == "ONE\ntwo\nthree\nfour\nFIVE\n" and len(meta["sources"]) == 2


def test_conflicting_body_gets_markers_and_merged_frontmatter() -> None:
    base = rec(body="SQLite it is.\n")
    ours = rec(body="SQLite, with WAL.\n", sources=(("s1", 2, 9), ("a", 0, 1)))
    theirs = rec(body="SQLite 3.45 or newer.\n", sources=(("s1", 2, 9), ("b", 0, 1)))
    out = merge(base, ours, theirs, DEC)
    assert not out.clean and "body" in out.why[0]
    text = out.data.decode()
    assert "<<<<<<< ours\nSQLite, with WAL.\n=======\nSQLite 3.45 or newer.\n>>>>>>> theirs\n" in text
    assert "session_id: a" in text and "session_id: b" in text  # no Source lost in a conflict either


def test_crlf_and_bom_keep_our_style() -> None:
    base = rec()
    ours = b"\xef\xbb\xbf" + rec(sources=(("s1", 2, 9), ("s2", 0, 1))).replace(b"\n", b"\r\n")
    theirs = rec(body="Use SQLite.\n\nWhy: one file, no server.\n")
    out = merge(base, ours, theirs, DEC)
    assert out.clean, out.why
    assert out.data.startswith(b"\xef\xbb\xbf---\r\n")
    assert b"\n" not in out.data.replace(b"\r\n", b"")
    meta, body = meta_body(out.data)
    assert len(meta["sources"]) == 2 and "no server" in body


def test_a_side_that_deleted_the_file_is_a_conflict_keeping_the_other_text() -> None:
    theirs = rec(body="Changed on their side.\n")
    out = merge(rec(), b"", theirs, DEC)
    assert not out.clean and "deleted" in out.why[0]
    assert out.data == theirs
    out = merge(rec(), rec(body="Ours.\n"), b"", DEC)
    assert not out.clean and out.data == rec(body="Ours.\n")


def test_both_added_the_same_record() -> None:
    ours = rec(created="2026-04-19T00:00:00Z", sources=(("a", 0, 1),))
    theirs = rec(created="2026-04-18T00:00:00Z", sources=(("b", 0, 1),))
    out = merge(b"", ours, theirs, DEC)
    assert out.clean, out.why
    meta, _ = meta_body(out.data)
    assert srcs(meta) == [("a", 0, 1), ("b", 0, 1)]
    assert "created_at: 2026-04-18T00:00:00Z" in out.data.decode()


@pytest.mark.parametrize("broken", [
    b"---\ncreated_at: [unclosed\nstatus: open\n---\nBody kept.\n",
    b"no frontmatter at all\nBody kept.\n",
    b"---\n- a list\n---\nBody kept.\n",
    b"---\nstatus: open\nstatus: resolved\n---\nBody kept.\n",
    b"\xff\xfe not utf-8 Body kept.\n",
])
def test_unparseable_side_is_a_conflict_and_loses_nothing(broken: bytes) -> None:
    theirs = rec(sources=(("s1", 2, 9), ("keep-me", 4, 5)))
    out = merge(rec(), broken, theirs, DEC)
    assert not out.clean and "does not parse" in out.why[0]
    assert b"Body kept." in out.data and b"keep-me" in out.data


def test_a_merge_that_would_not_lint_is_a_conflict() -> None:
    filler = "x" * 70 + "\n"
    base = rec(body="middle\n")
    ours = rec(body=filler * 60 + "middle\n")  # 4 260 chars: each side under the 8 000 cap
    theirs = rec(body="middle\n" + filler * 60)
    out = merge(base, ours, theirs, DEC)
    assert not out.clean and "would not lint clean" in out.why[0] and "cap 8000" in out.why[0]
    text = out.data.decode()
    assert text.startswith("<<<<<<< ours\n---\n") and "=======\n---\n" in text
    assert text.endswith(">>>>>>> theirs\n")


def test_summary_and_knowledge_sources() -> None:
    def summary(ranges: str) -> bytes:
        head = "---\nupdated_at: 2026-04-18T09:00:00+09:00\n"
        return f"{head}last_rewritten_from_range: {ranges}\n---\nS.\n".encode()

    out = merge(summary("{session_id: s1, range: [0, 3]}"), summary("{session_id: s1, range: [0, 9]}"),
                summary("{session_id: s2, range: [0, 2]}"), "memory/summary.md")
    assert out.clean, out.why
    meta, _ = meta_body(out.data)
    assert srcs(meta, "last_rewritten_from_range") == [("s1", 0, 9), ("s2", 0, 2)]


def test_the_command_writes_over_ours_and_exits_like_git_expects(tmp_path: Path) -> None:
    files = {"o": rec(), "a": rec(sources=(("s1", 2, 9), ("x", 0, 0))), "b": rec(body="Changed.\n")}
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    args = [sys.executable, "-m", "memcli", "merge-driver", "o", "a", "b", DEC]
    done = subprocess.run(args, cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    meta, body = meta_body((tmp_path / "a").read_bytes())
    assert len(meta["sources"]) == 2 and body == "Changed.\n"
    (tmp_path / "a").write_bytes(rec(body="Ours.\n"))
    (tmp_path / "b").write_bytes(rec(body="Theirs.\n"))
    done = subprocess.run(args, cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and "same lines of the body" in done.stderr
    assert "<<<<<<< ours" in (tmp_path / "a").read_text()
    bad = subprocess.run(args[:-1], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr


def test_a_merged_summary_over_its_token_cap_is_a_conflict() -> None:
    def summary(body: str) -> bytes:
        return f"---\nupdated_at: 2026-04-18T09:00:00+09:00\n---\n{body}".encode()

    half = "決定事項の要約です。" * 300  # each side well under 5 000 estimated tokens, both together over
    out = merge(summary("middle\n"), summary(half + "\nmiddle\n"), summary("middle\n" + half + "\n"),
                "memory/summary.md")
    assert not out.clean and "tokens (cap 5000)" in out.why[0]


def test_anchors_merge_item_by_item() -> None:
    base = rec(extra="anchors:\n  - src/old.py")
    ours = rec(extra="anchors:\n  - src/old.py\n  - {path: src/jobs.py, symbol: run}")  # ours adds one
    theirs = rec(extra="anchors:\n  - src/new.py")  # theirs fixed the stale one
    out = merge(base, ours, theirs, DEC)
    assert out.clean, out.why
    meta, _ = meta_body(out.data)
    assert meta["anchors"] == [{"path": "src/jobs.py", "symbol": "run"}, "src/new.py"]
    same = merge(base, base, theirs, DEC)
    assert meta_body(same.data)[0]["anchors"] == ["src/new.py"]
