"""Which statements say the same thing: paraphrases, translations, identifier spellings — and the
near misses that must stay apart."""

from __future__ import annotations

import pytest

from memcli.eval.detect import Weights, groups, similar_pairs
from memcli.eval.features import features
from memcli.eval.statements import Prompt, Session, directives

# Other things users say, so that word rarity (idf) is what it is in a real history.
BACKGROUND = [
    "Fix the failing test in src/billing/invoice.py.", "Add a `--dry-run` option to the `sync` command.",
    "Refactor `load_user` to be shorter.", "Always use type hints.", "Don't commit directly to main.",
    "Write the docs in English.", "テストを追加して。", "READMEを更新して。", "Use the logger, not print.",
    "Keep functions under 50 lines.", "Run the linter before pushing.", "Explain the plan first.",
]


def _sessions(texts: list[str]) -> list[Session]:
    return [Session(f"s{i}", "memcli-jsonl", f"s{i}.jsonl", None, (Prompt(0, 0, None, t),))
            for i, t in enumerate(texts)]


def _grouped(a: str, b: str) -> bool:
    statements, _ = directives(_sessions([a, b, *BACKGROUND]))
    weights = Weights([s.features for s in statements])
    found = groups(len(statements), similar_pairs(statements, weights), lambda i: statements[i].session)
    return any({0, 1} <= {statements[i].session for i in g} for g in found)


@pytest.mark.parametrize(("a", "b"), [
    ("Use pnpm instead of npm.", "Please install packages with `pnpm`, not npm."),
    ("Use pnpm instead of npm.", "npmじゃなくてpnpmを使って。"),
    ("Use `pathlib.Path` instead of `os.path`.", "`os.path`じゃなくて`pathlib.Path`を使って。"),
    ("Set max_retries to 3 in the client.", "Set maxRetries to 3 in the client."),
    ("Always run make test before you commit.", "Run `make test` before every commit."),
    ("Write commit messages in Japanese.", "コミットメッセージは日本語で書いてください。"),
    ("Never force-push to `main`.", "mainにforce pushしないで。"),
    ("Read the API key from the `API_KEY` env var, never hardcode it.",
     "APIキーは必ず`API_KEY`環境変数から取得すること。"),
    ("Store timestamps in UTC.", "タイムスタンプはUTCで保存して。"),
])
def test_the_same_instruction_in_other_words(a: str, b: str) -> None:
    assert _grouped(a, b)


@pytest.mark.parametrize(("a", "b"), [
    ("Use pnpm instead of npm.", "Use yarn instead of npm."),
    ("Write commit messages in English.", "Write commit messages in Japanese."),
    ("Indent with tabs.", "Indent with spaces."),
    ("Mock `RepoMap` in the new tests.", "Mock `GitRepo` in the new tests."),
    ("Run `ruff format` before every commit.", "Run `black format` before every commit."),
    ("Refactor `encode_image` in src/price/coupon.py.", "Refactor `fetch_price` in src/price/coupon.py."),
    ("Find out why `send_index` is slow.", "Add a test for `send_index`."),
    ("thanks", "thanks"),
    ("continue", "続けて"),
    ("Why did you use npm?", "Why did you use npm?"),
])
def test_near_misses_and_non_instructions_stay_apart(a: str, b: str) -> None:
    assert not _grouped(a, b)


def test_a_repetition_needs_two_sessions() -> None:
    one = Session("s0", "memcli-jsonl", "s0.jsonl", None, (
        Prompt(0, 0, None, "Use pnpm instead of npm."), Prompt(2, 2, None, "Use pnpm, not npm.")))
    statements, _ = directives([one, *_sessions(BACKGROUND)])
    weights = Weights([s.features for s in statements])
    pairs = similar_pairs(statements, weights)
    assert any({p.a, p.b} == {0, 1} for p in pairs)  # the two are alike ...
    assert not groups(len(statements), pairs, lambda i: statements[i].session)  # ... but said in one session


def test_identifier_spellings_are_one_feature() -> None:
    spellings = ["max_retries", "maxRetries", "--max-retries", "`max retries`", "MaxRetries", "`max.retries`"]
    assert {next(f for f, w in features(s).weights.items() if "_" in f) for s in spellings} == {"max_retries"}


@pytest.mark.parametrize(("english", "japanese"), [
    ("tests", "テスト"), ("commit", "コミット"), ("never", "しないで"), ("use", "使って"),
    ("instead", "じゃなくて"),
])
def test_the_glossary_joins_english_and_japanese(english: str, japanese: str) -> None:
    assert set(features(english).weights) == set(features(japanese).weights)
