"""The config: validated by pydantic the first time a file is seen, then read from the state
folder without importing pydantic; every change of the file is validated again."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from memcli.config import CACHE_FILE, Config, LintConfig, SearchConfig, load_config, state_dir_of
from memcli.errors import ConfigError

PROBE = ("import sys; from pathlib import Path; from memcli.config import load_config\n"
         "c = load_config(Path(sys.argv[1]))\n"
         "print(c.lint.summary_max_chars, c.search.fusion_k, c.memory.timeout_s, 'pydantic' in sys.modules)")


def _probe(root: Path) -> str:
    done = subprocess.run([sys.executable, "-c", PROBE, str(root)], capture_output=True, text=True,
                          env=os.environ.copy(), check=True)
    return done.stdout.strip()


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "memory").mkdir()
    (tmp_path / "memcli.toml").write_text("[lint]\nsummary_max_chars = 5\n[search]\nfusion_k = 3\n"
                                          "[memory]\ntimeout_s = 60\n", encoding="utf-8")
    return tmp_path


def test_a_validated_file_is_read_again_without_pydantic(root: Path) -> None:
    assert _probe(root) == "5 3 60.0 True"  # validated: the int becomes a float, as pydantic says
    assert (state_dir_of(root) / CACHE_FILE).is_file()
    assert _probe(root) == "5 3 60.0 False"  # the same values, without pydantic
    assert load_config(root) == Config(lint=LintConfig(summary_max_chars=5), search=SearchConfig(fusion_k=3),
                                       memory=load_config(root).memory)


def test_a_changed_file_is_validated_again(root: Path) -> None:
    load_config(root)
    (root / "memcli.toml").write_text("[lint]\nsummary_max_chars = 0\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="summary_max_chars: Input should be greater than or equal to 1"):
        load_config(root)
    (root / "memcli.toml").write_text("[lint]\nsumary_max_chars = 7\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"unknown key lint.sumary_max_chars \(did you mean"):
        load_config(root)


@pytest.mark.parametrize("garbage", ["", "[]", "{", json.dumps({"x": {"lint": {"nope": 1}}})])
def test_a_broken_cache_is_validated_again(root: Path, garbage: str) -> None:
    expected = load_config(root)
    cache = state_dir_of(root) / CACHE_FILE
    rows = json.loads(cache.read_text(encoding="utf-8"))
    cache.write_text(garbage, encoding="utf-8")
    assert load_config(root) == expected
    cache.write_text(json.dumps({key: {"lint": {"nope": 1}} for key in rows}), encoding="utf-8")
    assert load_config(root) == expected


def test_no_file_no_cache(tmp_path: Path) -> None:
    (tmp_path / "memory").mkdir()
    assert load_config(tmp_path) == Config()
    assert not (state_dir_of(tmp_path) / CACHE_FILE).exists()


def test_a_read_only_state_folder_still_reads_the_config(root: Path, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "state-is-a-file"
    blocker.write_text("x")
    monkeypatch.setenv("MEMCLI_STATE_DIR", str(blocker))
    assert load_config(root).lint.summary_max_chars == 5


def test_the_budget_table_is_kept_by_the_cache(tmp_path: Path) -> None:
    (tmp_path / "memory").mkdir()
    (tmp_path / "memcli.toml").write_text("[memory.budget]\nday_tokens = 1000\nrun_usd = 0.5\n",
                                          encoding="utf-8")
    first = load_config(tmp_path)
    assert first.memory.budget.day_tokens == 1000 and first.memory.budget.run_usd == 0.5
    again = load_config(tmp_path)  # from the cache: the table is a BudgetConfig again, not a dict
    assert again == first and again.memory.budget.day_tokens == 1000
    (tmp_path / "memcli.toml").write_text("[memory.budget]\nday_token = 1000\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="unknown key memory.budget.day_token"):
        load_config(tmp_path)
