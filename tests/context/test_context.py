"""`memcli context`: budget, order, determinism, CJK, broken and replaced records."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from support.cli import exit_code

from memcli.context import KIND_ORDER, build_context
from memcli.fence import MEMORY_LABEL
from memcli.tokens import EstimateCounter, get_counter
from memcli.workspace import Workspace

KINDS = ("term", "policy", "rule", "fact", "howto")
JA = ["データベース", "移行", "手順", "テスト", "本番", "注意点", "バックアップ", "設定", "確認する", "ログ"]

FENCED = MEMORY_LABEL + "\n~~~~memory\n"  # memory as data (memcli.fence.memory_fence)


def _description(rng: random.Random, i: int) -> str:
    if i % 3 == 0:  # Japanese, no spaces
        return "".join(rng.choice(JA) for _ in range(rng.randint(4, 14))) + "。"
    words = " ".join(rng.choice(["deploy", "cache", "retry", "schema", "backup", "index"]) for _ in range(12))
    return f"When to {words} (record {i})."


def _big_workspace(root: Path, write, knowledge) -> None:
    write(root, "memory/summary.md", "updated_at: 2026-05-12T09:30:00+09:00\n",
          "# Shop\n\nA shop service. 日本語のコミットメッセージも可。\n" + "- a fact about the shop\n" * 30)
    rng = random.Random(11)
    for i in range(500):
        day = 1 + i % 28
        knowledge(root, f"k{i:03d}", _description(rng, i), kind=KINDS[i % 5],
                  updated=f"2026-05-{day:02d}T10:00:00+09:00", invoked=i % 7 != 0)


@pytest.fixture
def big(tmp_path: Path, write, knowledge) -> Workspace:
    _big_workspace(tmp_path, write, knowledge)
    return Workspace.open(tmp_path)


@pytest.mark.parametrize("budget", [5000, 1200, 300])
def test_500_records_stay_within_budget(big: Workspace, budget: int) -> None:
    counter = get_counter()  # cl100k_base when its table is on this machine, the estimate otherwise
    result = build_context(big, budget, counter)
    assert counter.count(result.text) == result.tokens <= budget
    invoked = sum(1 for i in range(500) if i % 7 != 0)
    assert len(result.shown) + result.cut == invoked
    assert result.cut > 0
    last = result.text.rstrip("\n").splitlines()[-1]
    assert f"{result.cut} of {invoked} knowledge entries cut" in last
    assert f"fit {budget} tokens" in last


def test_estimate_counter_also_keeps_the_budget(big: Workspace) -> None:
    counter = EstimateCounter()
    result = build_context(big, 2000, counter)
    assert counter.count(result.text) <= 2000 and result.tokenizer == "estimate"


def test_deterministic_and_ordered(big: Workspace) -> None:
    first = build_context(big, 5000)
    assert first.text == build_context(big, 5000).text
    ranks = [KIND_ORDER.index(e.kind) for e in first.shown]
    assert ranks == sorted(ranks)  # rules first, then policies, ...
    assert first.shown[0].kind == "rule"
    # newest first inside a kind
    rules = [e for e in first.shown if e.kind == "rule"]
    keys = [(-(1 + int(e.slug[1:]) % 28), e.slug) for e in rules]  # (-updated day, slug)
    assert len(keys) > 10 and keys == sorted(keys)
    assert first.text.startswith(FENCED + "# Shop")  # the summary comes first
    assert all(not e.slug.endswith(("000", "007")) for e in first.shown)  # model_invocation false


def test_nothing_cut(tmp_path: Path, write, knowledge) -> None:
    write(tmp_path, "memory/summary.md", "updated_at: 2026-05-12T09:30:00+09:00\n", "# P\n\nSmall.")
    ja = "テストの実行方法（通常は pytest -q、リリース前は e2e も）。"
    knowledge(tmp_path, "test-commands", ja, kind="rule")
    knowledge(tmp_path, "wal-mode", "What WAL is.", kind="term", invoked=False)
    knowledge(tmp_path, "old-spelling", "Old field name still works.", field="model_invokation")
    result = build_context(Workspace.open(tmp_path))
    lines = result.text.splitlines()
    assert "- test-commands — テストの実行方法（通常は pytest -q、リリース前は e2e も）。" in lines
    assert "- old-spelling — Old field name still works." in lines
    assert "wal-mode" not in result.text
    assert lines[-1] == "_(memcli context: all 2 knowledge entries shown; nothing cut.)_"


def test_replaced_decisions_and_broken_records_never_appear(tmp_path: Path, write, knowledge) -> None:
    write(tmp_path, "memory/decisions/sync-job-runner.md",
          "created_at: 2026-04-20T10:00:00+09:00\nupdated_at: 2026-05-06T16:00:00+09:00\nstatus: replaced\n"
          "replaced_by: threads\nsources:\n  - session_id: s\n    range: [0, 1]\n", "Run jobs synchronously.")
    write(tmp_path, "knowledge/broken.md", "kind: [oops\n", "x")
    write(tmp_path, "knowledge/no-kind.md", "description: d\nmodel_invocation: true\n", "x")
    (tmp_path / "knowledge" / "binary.md").write_bytes(b"\x00\x01\x02")
    knowledge(tmp_path, "fine", "A valid entry.")
    knowledge(tmp_path, "Bad_Slug", "A valid record under an invalid file name.")
    result = build_context(Workspace.open(tmp_path))
    assert "sync-job-runner" not in result.text and "synchronously" not in result.text
    assert [e.slug for e in result.shown] == ["fine"]
    assert result.skipped == ("knowledge/Bad_Slug.md", "knowledge/binary.md", "knowledge/broken.md",
                              "knowledge/no-kind.md")
    assert result.summary_path is None


@pytest.mark.parametrize("budget", [100, 500])
@pytest.mark.parametrize("counter", [get_counter(), EstimateCounter()], ids=lambda c: c.name)
def test_summary_longer_than_budget_is_truncated(tmp_path: Path, write, knowledge, budget, counter) -> None:
    write(tmp_path, "memory/summary.md", "updated_at: 2026-05-12T09:30:00+09:00\n",
          "\n".join(f"- 長い要約の行 {i}: the project keeps growing" for i in range(400)))
    knowledge(tmp_path, "one", "One entry.")
    result = build_context(Workspace.open(tmp_path), budget, counter)
    assert counter.count(result.text) <= budget
    assert result.text.startswith(FENCED + "- 長い要約の行 0")
    assert result.summary_truncated and not result.shown
    assert "summary truncated, 1 of 1 knowledge entries cut" in result.text.splitlines()[-1]


def test_cli_json_and_budget_option(big: Workspace, capsys: pytest.CaptureFixture[str]) -> None:
    assert exit_code("context", "-w", str(big.root), "--format", "json", "--budget", "800") == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["schema"], data["version"], data["budget_tokens"]) == ("memcli.context", 1, 800)
    assert data["tokens"] <= 800 and data["cut"]["knowledge"] > 0
    assert data["text"].startswith(FENCED + "# Shop")
    assert exit_code("context", "-w", str(big.root)) == 0
    assert capsys.readouterr().out.endswith("`memcli search`.)_\n")


def test_cli_config_budget_and_errors(tmp_path: Path, write, knowledge, capsys) -> None:
    (tmp_path / "memcli.toml").write_text("[context]\nbudget_tokens = 150\n")
    for i in range(50):
        knowledge(tmp_path, f"k{i:02d}", f"Entry number {i} with a few words of description.")
    assert exit_code("context", "-w", str(tmp_path)) == 0
    out = capsys.readouterr().out
    assert get_counter().count(out) <= 150 and "to fit 150 tokens" in out
    assert exit_code("context", "-w", str(tmp_path), "--budget", "10") == 2
    assert "too small" in capsys.readouterr().err
    assert exit_code("context", "-w", str(tmp_path), "--format", "yaml") == 2
