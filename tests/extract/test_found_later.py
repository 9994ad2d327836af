"""A transcript read with `extract --path` (one discovery does not find) is found again by
`memcli source`, `memcli why` (through its Sources) and the MCP `memcli_source` tool: the extract
ledger keeps the file it was read from."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from extract.helpers import conversation, staged, write_jsonl
from support.cli import run as cli
from support.fake_llm import FakeLLM, Reply

from memcli.extract import remember
from memcli.extract.run import run
from memcli.mcpserver import tools
from memcli.records.models import Source
from memcli.sessions.discover import UnknownSession, find_session
from memcli.why.sources import trace
from memcli.workspace import Workspace

ITEMS = {"decisions": [{"title": "検索索引は SQLite", "decision": "Keep the search index in SQLite",
                        "rationale": "one file, no server"}],
         "discussions": [], "attempts": [], "requests": []}


@pytest.fixture
def extracted(fake_llm: FakeLLM, ws: Workspace, tmp_path: Path) -> Source:
    fake_llm.responder = lambda body: Reply(content=json.dumps(ITEMS, ensure_ascii=False))
    elsewhere = write_jsonl(tmp_path / "elsewhere" / "chat.jsonl", conversation(6))
    assert run(ws, paths=[elsewhere]) == 0
    source = next(f.source for f in staged(ws) if f.model != remember.MODEL)
    with pytest.raises(UnknownSession):  # discovery alone does not find it
        find_session(ws, source.session_id)
    return source


def test_source_finds_a_transcript_extract_read_from_a_path(
        extracted: Source, ws: Workspace, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = cli(capsys, "source", f"{extracted.session_id}:0-1", "-w", str(ws.root))
    assert code == 0, err
    assert "message 0: we should keep the index in SQLite" in out and "chat.jsonl" in out


def test_why_traces_a_source_into_a_transcript_extract_read_from_a_path(
        extracted: Source, ws: Workspace) -> None:
    [story] = trace(ws, [("sources", extracted, extracted.model_dump())])
    assert story.found and story.excerpt and "keep the index in SQLite" in story.excerpt


def test_the_mcp_source_tool_finds_it_too(extracted: Source, ws: Workspace) -> None:
    reply = tools.source(ws, extracted.session_id, 0, 1)
    assert "keep the index in SQLite" in str(reply)


def test_a_file_gone_since_is_not_found(extracted: Source, ws: Workspace, tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "elsewhere" / "chat.jsonl").unlink()
    code, _, err = cli(capsys, "source", f"{extracted.session_id}:0-1", "-w", str(ws.root))
    assert code != 0 and f"no session {extracted.session_id!r}" in err and "Traceback" not in err
