"""The `memcli` executable after a model command: its whole summary reaches the pipe, its exit code
is the command's, and the exit handlers still run (memcli.entry.leave skips only the teardown)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from extract.helpers import conversation, make_ws, staged, write_jsonl
from support.fake_llm import FakeLLM, Reply

ITEMS = {"decisions": [{"title": "索引は SQLite", "decision": "Keep the index in SQLite",
                        "rationale": "one file"}],
         "discussions": [], "attempts": [], "requests": []}
# what the installed executable runs, a temporary folder that only an exit handler removes, and an
# object that speaks when the interpreter's teardown frees it
RUN = ("import tempfile, sys; from pathlib import Path\n"
       "kept = tempfile.TemporaryDirectory(); Path(sys.argv[-1]).write_text(kept.name)\n"
       "class Last:\n    def __del__(self): print('torn down', file=sys.stderr)\n"
       "last = Last()\n"
       "sys.argv = sys.argv[:-1]\n"
       "from memcli.entry import main; main()\n")


def _extract(ws_root: Path, transcript: Path, note: Path) -> subprocess.CompletedProcess[str]:
    argv = ["extract", "--path", str(transcript), "-w", str(ws_root), str(note)]
    return subprocess.run([sys.executable, "-c", RUN, *argv], capture_output=True, text=True,
                          env=dict(os.environ), timeout=300)


@pytest.mark.parametrize("answer, code", [("items", 0), ("refuse", 1)])
def test_a_model_command_exits_with_its_code_its_summary_whole_and_exit_handlers_run(
        fake_llm: FakeLLM, tmp_path: Path, answer: str, code: int) -> None:
    ws = make_ws(tmp_path / "ws")
    items = Reply(content=json.dumps(ITEMS, ensure_ascii=False))
    fake_llm.responder = (lambda body: items) if answer == "items" else (lambda body: Reply(status=400))
    transcript = write_jsonl(tmp_path / "t" / "chat.jsonl", conversation(6))
    note = tmp_path / "tempdir.txt"
    done = _extract(ws.root, transcript, note)
    assert done.returncode == code, done.stderr
    assert "tokens:" in done.stdout.splitlines()[-1]  # the summary's last line, all of it
    assert "Traceback" not in done.stderr
    assert not Path(note.read_text()).exists()  # TemporaryDirectory's exit handler ran
    assert "torn down" not in done.stderr  # the teardown was skipped
    assert bool(staged(ws)) is (code == 0)
