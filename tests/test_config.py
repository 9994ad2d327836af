"""The config: validated the first time a file is seen (plainly when every value plainly fits, else
by pydantic), then read from the state folder without importing pydantic; every change of the file
is validated again."""

from __future__ import annotations

import copy
import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from memcli import config as config_module
from memcli.config import (
    CACHE_FILE,
    DEFAULT_CONFIG_TEXT,
    Config,
    LintConfig,
    SearchConfig,
    as_dict,
    load_config,
    plain_config,
    state_dir_of,
)
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
                                          "[memory]\ntimeout_s = '60'\n", encoding="utf-8")
    return tmp_path


def test_a_validated_file_is_read_again_without_pydantic(root: Path) -> None:
    assert _probe(root) == "5 3 60.0 True"  # '60' is no float: pydantic judges it (and takes it)
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


def _full_default() -> dict:
    """The generated memcli.toml with every commented-out value set."""
    text = re.sub(r"^# ([a-z_]+ = )", r"\1", DEFAULT_CONFIG_TEXT, flags=re.M)
    return tomllib.loads(text.replace("# [memory.budget]", "[memory.budget]"))


def _by_pydantic(table: dict) -> Config | str:
    import annotated_types
    from pydantic import TypeAdapter, ValidationError

    vars(config_module).update(Ge=annotated_types.Ge, Gt=annotated_types.Gt, Le=annotated_types.Le)
    try:
        return TypeAdapter(Config).validate_python(table)
    except ValidationError:
        return "refused"


def _variants() -> list[dict]:
    """Tables near the edges: each field of the full default set to values inside, on and past
    its bounds and of other types (what plain_config must take as pydantic does, or leave)."""
    base = _full_default()
    out = [base, {}, {"memory": {}}, {"memory": {"budget": {}}}]
    odd = [0, 1, -1, 0.0, 0.5, 512, 511, 5000, 5001, 1000, 999, 100, 100.5, True, "", "x", "60", None, [],
           ["a"], [1], {}, "auto", "prompt", float("inf"), float("nan")]
    for section, values in base.items():
        for key in values:
            for new in odd:
                table = copy.deepcopy(base)
                table[section][key] = new
                out.append(table)
    out.append({**base, "nope": {}})
    out.append({"lint": {"summary_max_char": 5}})
    out.append({"lint": []})
    out.append({"memory": {"budget": {"day_tokens": 0}}})
    return out


def test_a_plain_table_gives_what_pydantic_gives() -> None:
    taken = 0
    for table in _variants():
        plain = plain_config(copy.deepcopy(table))
        if plain is None:
            continue
        taken += 1
        judged = _by_pydantic(copy.deepcopy(table))
        assert plain == judged and as_dict(plain) == as_dict(judged), table  # (as_dict: float vs int)
        assert [type(v) for v in as_dict(plain)["memory"].values()] == \
            [type(v) for v in as_dict(judged)["memory"].values()]
    assert plain_config(_full_default()) is not None and taken > 100


def test_a_first_start_on_a_plain_file_imports_no_pydantic(tmp_path: Path) -> None:
    (tmp_path / "memory").mkdir()
    every = re.sub(r"^# ([a-z_]+ = )", r"\1", DEFAULT_CONFIG_TEXT, flags=re.M)  # every value set
    every = every.replace("# [memory.budget]", "[memory.budget]")
    every = every.replace("stale_days = 180", "stale_days = 30")
    (tmp_path / "memcli.toml").write_text(every, encoding="utf-8")
    assert _probe(tmp_path) == "20000 2 300.0 False"
    assert load_config(tmp_path).gc.stale_days == 30
    (tmp_path / "memcli.toml").write_text("[lint]\nsummary_max_chars = 0\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="summary_max_chars: Input should be greater than or equal to 1"):
        load_config(tmp_path)  # past a bound: pydantic says why
