"""Which sentences the user typed count as instructions, corrections or preferences (EN and JA)."""

from __future__ import annotations

import pytest

from memcli.eval.directive import CORRECTION, INSTRUCTION, PREFERENCE, clean, kind_of
from memcli.eval.features import features
from memcli.eval.statements import Prompt, Session, directives, sentences


@pytest.mark.parametrize(("text", "kind"), [
    ("Use pnpm instead of npm.", CORRECTION),
    ("No, use the staging database.", CORRECTION),
    ("Don't use npm here, pnpm only.", INSTRUCTION),
    ("I mean non-blank lines, not including the hash.", CORRECTION),
    ("npmじゃなくてpnpmを使って。", CORRECTION),
    ("`os.path`ではなく`pathlib.Path`でお願いします。", CORRECTION),
    ("I prefer f-strings over `.format()`.", PREFERENCE),
    ("We use ruff in this repo.", PREFERENCE),
    ("パッケージ管理はpnpmの方がいい。", PREFERENCE),
    ("Always run make test before you commit.", INSTRUCTION),
    ("Never force-push to main.", INSTRUCTION),
    ("Add a test for parse_date.", INSTRUCTION),
    ("please keep the commit messages short", INSTRUCTION),
    ("Could you run the linter first?", INSTRUCTION),
    ("Before you edit anything, tell me the plan.", INSTRUCTION),
    ("Every behaviour change needs an entry in CHANGELOG.md.", INSTRUCTION),
    ("コミットメッセージは日本語で書いてください。", INSTRUCTION),
    ("テストは必ずpytestで書くこと。", INSTRUCTION),
    ("mainにforce pushしないで。", INSTRUCTION),
    ("インデントはスペースにして", INSTRUCTION),
    ("テストを実行してくれますか？", INSTRUCTION),
    ("/orchestrator create a TODO app with Next.js", INSTRUCTION),
    ("Tell me the plan before you edit anything.", INSTRUCTION),
    ("Always show the diff first.", INSTRUCTION),
    ("Never print secrets in the logs.", INSTRUCTION),
    ("Show the diff when you finish a task.", INSTRUCTION),
    ("毎回テスト結果を見せて", INSTRUCTION),
    ("編集する前に計画を教えて", INSTRUCTION),
])
def test_directives_and_their_kind(text: str, kind: str) -> None:
    assert kind_of(text) == kind
    assert features(clean(text)).content


@pytest.mark.parametrize("text", [
    "Why did you use npm?",
    "Is UTC what the database stores?",
    "どうしてテストが失敗したの？",
    "I don't know why it fails.",
    "The build is green now.",
    "It was the cache after all.",
    "hi",
    "/undo",
    "/add tests/basic/test_repomap.py",
    "show tools",  # asks to be shown something now: a task, however often it is typed
    "Please list the open issues.",
    "explain this stack trace",
    "ツールを見せて",
    "このエラーを説明してください",
])
def test_not_directives(text: str) -> None:
    assert kind_of(text) is None


@pytest.mark.parametrize("text", ["thanks", "Thanks!", "continue", "go ahead", "do it again", "looks good",
                                  "続けて", "OK、進めて", "ありがとう", "はい、お願いします",
                                  "don't do that"])
def test_acknowledgements_and_nudges_are_about_nothing(text: str) -> None:
    assert not features(clean(text)).content


def test_only_the_sentences_the_user_says_are_read() -> None:
    prompt = ("Fix the login bug. Use pnpm instead of npm.\n"
              "> Never do what this quoted text says.\n"
              "```\nalways run rm -rf /\n```\n"
              "- Always write tests with pytest.\n"
              "テストを書いて。ドキュメントも更新して。")
    assert sentences(prompt) == ["Fix the login bug.", "Use pnpm instead of npm.",
                                 "Always write tests with pytest.", "テストを書いて。",
                                 "ドキュメントも更新して。"]


def test_directives_of_sessions_keep_where_they_were_said() -> None:
    session = Session("s1", "memcli-jsonl", "s1.jsonl", None, (
        Prompt(0, 0, None, "thanks. Use pnpm instead of npm."),
        Prompt(4, 6, None, "Why did the build fail?"),
        Prompt(8, 8, None, "/orchestrator 日本語で答えてください"),
    ))
    found, total = directives([session])
    assert total == 4
    assert [(s.session, s.prompt, s.text, s.kind) for s in found] == [
        (0, 0, "Use pnpm instead of npm.", CORRECTION),
        (0, 2, "日本語で答えてください", INSTRUCTION),
    ]
