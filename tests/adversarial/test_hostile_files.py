"""Hostile files in memory/ and knowledge/ (#37 item 6): a 50 MB record, bytes that are not UTF-8,
NUL bytes, a BOM, links of every sort and FIFOs, through every route that reads the workspace —
`memcli lint` (cold, from its cache, `--no-cache`), `context`, `search`, `gc-report` and the MCP
tools through the stdio server's dispatch. Each is a lint finding or a one-line error, exit 0/1/2,
in bounded memory, never a hang; nothing outside the workspace is read, nothing inside is changed.

The limit: a record file over 1 MiB (memcli.recordtext.MAX_FILE_BYTES) is not read by any reader
(a 50 MB record took `memcli lint` 475 s and `memcli search` 1.4 GB before) and is one `too-large`
finding."""

from __future__ import annotations

import os
import shutil
import tracemalloc
from pathlib import Path

import pytest
from adversarial.kit import FifoGuard, cli_routes, lint_findings, mcp_call, mcp_front, workspace_files
from support.cli import run as cli

from memcli.recordtext import MAX_FILE_BYTES

SECRET = "OUTSIDE-SECRET-7f3a"  # in files outside the workspace: no route may ever print it
GOOD = "knowledge/sqlite-backup.md"  # model-invoked: in the resident context
WORD = "zanzibarquux"  # only in the hostile file


def _record(example_ws: Path, words: str = WORD) -> bytes:
    """A valid knowledge record (the example's wal-mode) whose body holds `words`."""
    return (example_ws / "knowledge/wal-mode.md").read_bytes() + f"\n{words}\n".encode()


def _huge(example_ws: Path, size: int = 50 * 2**20) -> bytes:
    line = f"{WORD} all work and no play makes a dull record.\n".encode()
    head = _record(example_ws)
    return head + line * ((size - len(head)) // len(line) + 1)


def _outside(tmp_path: Path, example_ws: Path) -> Path:
    """A valid record outside the workspace, holding SECRET, and a folder of them."""
    folder = tmp_path / "outside"
    folder.mkdir(exist_ok=True)
    (folder / "leak.md").write_bytes(_record(example_ws, SECRET))
    return folder


def _no_secret(outs: dict) -> None:
    for name, (_, out, err) in outs.items():
        assert SECRET not in out and SECRET not in err, name


# -- a 50 MB file -----------------------------------------------------------------------------

@pytest.mark.parametrize("where", ["knowledge/huge.md", "memory/decisions/huge.md", "memory/summary.md"])
def test_a_50_mb_record_is_one_too_large_finding_read_in_bounded_memory(
        where: str, example_ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cli_routes(example_ws, capsys)  # warm: what is measured below is reading, not importing
    mcp_call(mcp_front(example_ws), "memcli_context")
    data = _huge(example_ws)
    (example_ws / where).write_bytes(data)
    before = workspace_files(example_ws)
    tracemalloc.start()
    try:
        outs = cli_routes(example_ws, capsys)
        front = mcp_front(example_ws)
        read = mcp_call(front, "memcli_read", record=where)
        searched = mcp_call(front, "memcli_search", query=WORD)
        context = mcp_call(front, "memcli_context")
        front.searcher.close()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # Memory: a few times the 1 MiB read, never the 50 MB file (the old store held it several times).
    assert peak < 16 * 2**20, f"peak {peak} bytes"
    for name in ("lint", "lint-cached", "lint-no-cache"):
        code, out, _ = outs[name]
        assert code == 1 and lint_findings(out).get(where) == {"too-large"}, (name, out)
    assert "1 MiB" in outs["lint"][1]
    assert outs["context"][0] == 0 and WORD not in outs["context"][1]
    assert "sqlite-backup" in outs["context"][1] or where == "memory/summary.md"
    assert outs["search"][0] == 0 and "huge" not in outs["search"][1]
    assert outs["gc-report"][0] == 0 and where in outs["gc-report"][1]  # named among the skipped
    is_error, text, _ = read
    assert is_error and "1 MiB" in text and "\n" not in text and WORD not in text
    assert not searched[0] and searched[2]["hits"] == []
    assert not context[0] and WORD not in context[1]
    assert workspace_files(example_ws) == before  # nothing changed, the file kept whole
    assert (example_ws / where).stat().st_size == len(data)


def test_a_file_at_the_limit_is_read_and_one_byte_more_is_not(
        example_ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    head = _record(example_ws)
    at_limit = head + b"x" * (MAX_FILE_BYTES - len(head) - 1) + b"\n"
    assert len(at_limit) == MAX_FILE_BYTES
    (example_ws / "knowledge/at-limit.md").write_bytes(at_limit)
    (example_ws / "knowledge/over-limit.md").write_bytes(at_limit + b"\n")
    found = lint_findings(cli_routes(example_ws, capsys)["lint"][1])
    assert found["knowledge/at-limit.md"] == {"too-large", "low-value-large"}  # read: the body cap
    assert found["knowledge/over-limit.md"] == {"too-large"}  # not read


# -- bytes: invalid UTF-8, NUL, BOM ------------------------------------------------------------

BAD_BYTES = {
    "knowledge/latin1.md": lambda good: good + "café\n".encode("latin-1"),
    "knowledge/nul-early.md": lambda good: good.replace(b"WAL", b"W\x00AL", 1),
    "knowledge/nul-late.md": lambda good: good + b"x" * 9000 + b"\x00\n",  # past the first 8 KB
    "memory/decisions/binary.md": lambda good: bytes(range(256)) * 8,
    "knowledge/cut-mid-char.md": lambda good: good + "認証".encode()[:-1],
}


def test_invalid_utf8_and_nul_are_a_parse_finding_and_skipped_on_every_route(
        example_ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = (example_ws / GOOD).read_bytes()
    for rel, make in BAD_BYTES.items():
        (example_ws / rel).write_bytes(make(good).replace(b"backup", WORD.encode()))
    before = workspace_files(example_ws)
    outs = cli_routes(example_ws, capsys)
    for name in ("lint", "lint-cached", "lint-no-cache"):
        found = lint_findings(outs[name][1])
        for rel in BAD_BYTES:
            assert found.get(rel) == {"parse"}, (name, rel, found.get(rel))
    assert WORD not in outs["context"][1]  # not shown: what lint rejects is not context
    assert all(rel in outs["gc-report"][1] for rel in BAD_BYTES)  # named among the skipped
    front = mcp_front(example_ws)
    for rel in BAD_BYTES:
        is_error, text, _ = mcp_call(front, "memcli_read", record=rel)
        assert is_error and "\n" not in text and ("UTF-8" in text or "NUL" in text), (rel, text)
    is_error, _, data = mcp_call(front, "memcli_search", query=WORD)
    assert not is_error and data["hits"] == []
    front.searcher.close()
    assert workspace_files(example_ws) == before


def test_a_bom_is_accepted_alike_on_every_route(example_ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = example_ws / GOOD
    text = path.read_bytes().replace(b"consistent backup", f"{WORD} backup".encode())
    path.write_bytes(b"\xef\xbb\xbf" + text)
    decision = example_ws / "memory/decisions/use-sqlite-wal.md"
    decision.write_bytes(b"\xef\xbb\xbf" + decision.read_bytes())
    outs = cli_routes(example_ws, capsys)
    for name in ("lint", "lint-cached", "lint-no-cache"):
        assert outs[name][0] == 0 and lint_findings(outs[name][1]) == {}, (name, outs[name][1])
    assert WORD in outs["context"][1] and "\ufeff" not in outs["context"][1]
    front = mcp_front(example_ws)
    is_error, text, _ = mcp_call(front, "memcli_search", query=WORD)
    assert not is_error and "sqlite-backup" in text
    is_error, text, _ = mcp_call(front, "memcli_read", record="sqlite-backup")
    assert not is_error and WORD in text
    assert not [line for line in outs["gc-report"][1].splitlines() if "skipped" in line and GOOD in line]
    front.searcher.close()


# -- links, hard links, FIFOs -------------------------------------------------------------------

def test_links_never_lead_outside_and_each_is_a_finding(
        example_ws: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    outside = _outside(tmp_path, example_ws)
    k, d = example_ws / "knowledge", example_ws / "memory/decisions"
    os.symlink(outside / "leak.md", k / "leak.md")  # a file outside
    os.symlink(outside, k / "folder-out")  # a folder outside
    os.symlink("/", d / "root.md")
    os.symlink("nowhere.md", k / "dangling.md")
    os.symlink("loop-b.md", k / "loop-a.md")
    os.symlink("loop-a.md", k / "loop-b.md")
    os.symlink(".", k / "self")  # a folder loop
    os.symlink("sqlite-backup.md", k / "alias.md")  # inside: a record like any other
    os.link(k / "wal-mode.md", k / "hard.md")
    before = workspace_files(example_ws)
    outs = cli_routes(example_ws, capsys)
    _no_secret(outs)
    for name in ("lint", "lint-cached", "lint-no-cache"):
        found = lint_findings(outs[name][1])
        for rel in ("knowledge/leak.md", "knowledge/dangling.md", "knowledge/loop-a.md",
                    "knowledge/loop-b.md", "memory/decisions/root.md"):
            assert found.get(rel) == {"parse"}, (name, rel, found.get(rel))
        assert "knowledge/alias.md" not in found and "knowledge/hard.md" not in found
    front = mcp_front(example_ws)
    for record in ("knowledge/leak.md", "knowledge/folder-out/leak.md", "memory/decisions/root.md",
                   "knowledge/self/leak.md", "knowledge/loop-a.md", "knowledge/dangling.md"):
        is_error, text, _ = mcp_call(front, "memcli_read", record=record)
        assert is_error and "\n" not in text and SECRET not in text, (record, text)
    for name, args in (("memcli_search", {"query": "OUTSIDE SECRET"}), ("memcli_context", {})):
        is_error, text, _ = mcp_call(front, name, **args)
        assert not is_error and SECRET not in text
    front.searcher.close()
    assert workspace_files(example_ws) == before
    assert (outside / "leak.md").read_bytes() == _record(example_ws, SECRET)


@pytest.mark.parametrize("linked", ["knowledge", "memory"])
def test_a_record_folder_linked_outside_is_not_a_crash(
        linked: str, example_ws: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / f"real-{linked}"
    shutil.move(example_ws / linked, target)
    os.symlink(target, example_ws / linked)
    before = workspace_files(example_ws)
    cli_routes(example_ws, capsys)
    assert workspace_files(example_ws) == before


FIFOS = ("knowledge/fifo-k.md", "memory/decisions/fifo-d.md", "memory/requests/fifo-r.md",
         "memory/workflow/fifo-w.md")


def test_fifos_never_block_any_route(example_ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for rel in FIFOS:
        os.mkfifo(example_ws / rel)
    (example_ws / "memory/summary.md").unlink()
    os.mkfifo(example_ws / "memory/summary.md")
    with FifoGuard(example_ws) as guard:
        outs = cli_routes(example_ws, capsys)
        front = mcp_front(example_ws)
        replies = [mcp_call(front, "memcli_read", record=rel) for rel in (*FIFOS, "summary", "fifo-k")]
        replies += [mcp_call(front, "memcli_search", query="wal"), mcp_call(front, "memcli_context")]
        front.searcher.close()
    assert guard.fired == [], f"blocked on {guard.fired}"
    for name in ("lint", "lint-cached", "lint-no-cache"):
        found = lint_findings(outs[name][1])
        for rel in (*FIFOS, "memory/summary.md"):
            assert found.get(rel) == {"parse"}, (name, rel, found.get(rel))
    for is_error, text, _ in replies[: len(FIFOS) + 2]:
        assert is_error and "\n" not in text
    assert not replies[-2][0] and not replies[-1][0]


def test_fifos_never_block_the_writing_and_reading_routes(example_ws: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    """The routes that read every record for their own ends (skills, eval, why, metrics, hooks
    install's skills sync): a FIFO named like a record is passed over, never waited on."""
    for rel in FIFOS:
        os.mkfifo(example_ws / rel)
    routes = [("skills", "sync"), ("skills", "sync", "--dry-run"),
              ("hooks", "install", "--agent", "claude-code"),
              ("eval",), ("why", "wal-mode"), ("metrics",)]
    with FifoGuard(example_ws) as guard:
        for args in routes:
            code, stdout, stderr = cli(capsys, *args, "-w", str(example_ws))
            assert code in (0, 1, 2) and "Traceback" not in stderr + stdout, (args, code, stderr)
    assert guard.fired == [], f"blocked on {guard.fired}"
    assert (example_ws / ".claude/skills").is_dir()  # the real records still became skills


def test_a_fifo_or_a_50_mb_file_as_an_agents_skill_never_blocks_lint(
        example_ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (example_ws / ".claude/skills/fifo").mkdir(parents=True)
    os.mkfifo(example_ws / ".claude/skills/fifo/SKILL.md")
    (example_ws / ".claude/skills/huge").mkdir(parents=True)
    (example_ws / ".claude/skills/huge/SKILL.md").write_bytes(_huge(example_ws))
    with FifoGuard(example_ws) as guard:
        outs = cli_routes(example_ws, capsys, ("lint", "lint-no-cache"))
    assert guard.fired == []
    for _, out, _ in outs.values():
        assert lint_findings(out).get(".claude/skills/huge/SKILL.md") == {"skill-invalid"}
        assert "1 MiB" in out


def test_a_fifo_as_a_record_folder_never_blocks(example_ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shutil.rmtree(example_ws / "knowledge")
    os.mkfifo(example_ws / "knowledge")
    with FifoGuard(example_ws) as guard:
        cli_routes(example_ws, capsys)
        front = mcp_front(example_ws)
        is_error, text, _ = mcp_call(front, "memcli_read", record="knowledge/x.md")
        front.searcher.close()
    assert guard.fired == []
    assert is_error and "\n" not in text
