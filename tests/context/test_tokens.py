"""Token counting: the local cl100k_base table or the documented estimate, never the network."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from memcli import tokens
from memcli.tokens import EstimateCounter, get_counter, local_bpe_file

SAMPLES = [
    "Use SQLite in WAL mode as the only datastore for now; revisit when a second writer appears.",
    "テストの実行方法（通常は pytest -q、リリース前は e2e も）。テストを走らせる前に参照する。",
    "- sqlite-backup — How to take a consistent backup of the live SQLite database.\n",
]


def test_estimate_is_documented_formula() -> None:
    est = EstimateCounter()
    assert est.count("") == 0
    assert est.count("abcdef") == 2  # 6 ASCII chars / 3
    assert est.count("日本語") == 5  # ceil(3 * 1.5)


def test_estimate_errs_high_against_the_real_tokenizer() -> None:
    counter = get_counter()
    if counter.name == "estimate":
        pytest.skip("cl100k_base table not on this machine: nothing to compare with")
    for text in SAMPLES:
        assert EstimateCounter().count(text) >= counter.count(text), text


def test_rare_kanji_are_the_known_limit_of_the_estimate() -> None:
    # Documented in docs/context.md: rare kanji take ~2 cl100k tokens each, more than the estimate's 1.5.
    counter = get_counter()
    if counter.name == "estimate":
        pytest.skip("cl100k_base table not on this machine")
    text = "鬱蒼とした森で麒麟が躍る"
    assert EstimateCounter().count(text) < counter.count(text) <= 2 * len(text)


def test_real_tokenizer_counts_like_cl100k() -> None:
    counter = get_counter()
    if counter.name == "estimate":
        pytest.skip("cl100k_base table not on this machine")
    assert counter.count("hello world") == 2
    assert counter.count("<|endoftext|>") > 1  # special-token text counts as plain text


def test_a_cached_file_with_the_wrong_hash_is_ignored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = hashlib.sha1(tokens._URL.encode()).hexdigest()
    (tmp_path / key).write_bytes(b"not a bpe table")
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    found = local_bpe_file()
    assert found is None or found.parent != tmp_path


def test_no_table_anywhere_falls_back_to_the_estimate(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tokens, "_cache_dirs", lambda: [tmp_path])
    get_counter.cache_clear()
    try:
        assert get_counter().name == "estimate"
    finally:
        get_counter.cache_clear()
