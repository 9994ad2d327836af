"""What keeps `memcli context` fast at every session start: the decoded tokenizer table kept in the
state folder, and the layout memo that spares a run over unchanged memory any counting at all."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from memcli import tokens
from memcli.context import build_context
from memcli.context.memo import MEMO_FILE
from memcli.tokens import get_counter, local_bpe_file
from memcli.workspace import Workspace

REPO = Path(__file__).resolve().parents[2]
SAMPLES = ["hello world", "テストの実行方法（通常は pytest -q）。", "- sqlite-backup — How to back up.\n"]

needs_table = pytest.mark.skipif(local_bpe_file() is None, reason="cl100k_base table not on this machine")


@needs_table
def test_cached_table_counts_exactly_like_the_parsed_one(tmp_path: Path) -> None:
    bpe = local_bpe_file()
    assert bpe is not None
    parsed = tokens.TiktokenCounter(tokens._load_tiktoken(bpe, None))
    first = tokens.TiktokenCounter(tokens._load_tiktoken(bpe, tmp_path))  # parses, writes the cache
    cached_files = list(tmp_path.glob("tokenizer-*.marshal"))
    assert len(cached_files) == 1
    second = tokens.TiktokenCounter(tokens._load_tiktoken(bpe, tmp_path))  # reads the cache
    for text in SAMPLES:
        assert parsed.count(text) == first.count(text) == second.count(text)


@needs_table
@pytest.mark.parametrize("garbage", [b"", b"\x00not marshal", b"\xe9\x03\x00\x00\x00"])
def test_a_broken_table_cache_is_ignored_and_rewritten(tmp_path: Path, garbage: bytes) -> None:
    bpe = local_bpe_file()
    assert bpe is not None
    cache = tokens._ranks_cache(tmp_path)
    cache.write_bytes(garbage)
    counter = tokens.TiktokenCounter(tokens._load_tiktoken(bpe, tmp_path))
    assert counter.count("hello world") == 2
    assert cache.stat().st_size > 1_000_000  # the real table again


def _workspace(root: Path, write, knowledge) -> Workspace:
    write(root, "memory/summary.md", "updated_at: 2026-05-12T09:30:00+09:00\n", "# Shop\n\n日本語の要約。\n")
    for i in range(40):
        knowledge(root, f"k{i:02d}", f"When to retry the payment webhook, case {i}.")
    return Workspace.open(root)


def test_memoised_layout_matches_a_fresh_count(tmp_path: Path, write, knowledge) -> None:
    ws = _workspace(tmp_path / "ws", write, knowledge)
    for budget in (5000, 200):
        cold = build_context(ws, budget)
        assert (ws.state_dir / MEMO_FILE).is_file()
        warm = build_context(ws, budget)
        fresh = build_context(ws, budget, get_counter())
        assert cold == warm == fresh


def test_memo_follows_a_changed_record(tmp_path: Path, write, knowledge) -> None:
    ws = _workspace(tmp_path / "ws", write, knowledge)
    before = build_context(ws, 300)
    knowledge(tmp_path / "ws", "k00", "A much longer description now: " + "detail " * 40)
    after = build_context(ws, 300)
    assert after == build_context(ws, 300, get_counter())
    assert after.text != before.text


def test_a_broken_memo_is_ignored(tmp_path: Path, write, knowledge) -> None:
    ws = _workspace(tmp_path / "ws", write, knowledge)
    ws.state_dir.mkdir(parents=True, exist_ok=True)
    (ws.state_dir / MEMO_FILE).write_text('{"x": [1, 2], "y": "z"', encoding="utf-8")
    assert build_context(ws, 300) == build_context(ws, 300, get_counter())
    memo = ws.state_dir / MEMO_FILE
    rows = json.loads(memo.read_text(encoding="utf-8"))
    assert rows  # the run above stored its layout; now every stored row is of the wrong shape
    memo.write_text(json.dumps({key: ["cl100k_base", "a", 1, True, 5] for key in rows}), encoding="utf-8")
    assert build_context(ws, 300) == build_context(ws, 300, get_counter())


def test_unchanged_memory_loads_no_tokenizer(tmp_path: Path, write, knowledge) -> None:
    """The second `memcli context` over the same records counts nothing: tiktoken is never imported."""
    ws = _workspace(tmp_path / "ws", write, knowledge)
    probe = ("import sys, runpy; sys.argv = ['memcli', 'context']\n"
             "try:\n    runpy.run_module('memcli', run_name='__main__')\n"
             "except SystemExit:\n    pass\n"
             "sys.stderr.write('TIKTOKEN=%s' % ('tiktoken' in sys.modules))\n")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    runs = [subprocess.run([sys.executable, "-c", probe], cwd=ws.root, env=env, capture_output=True,
                           text=True, check=True) for _ in range(2)]
    assert runs[0].stdout == runs[1].stdout and "Knowledge index" in runs[0].stdout
    assert runs[1].stderr.endswith("TIKTOKEN=False")
