"""Near-duplicate bodies: found across a large generated set, CJK included, nothing else paired."""

from __future__ import annotations

import random

from memcli.gc.duplicates import near_duplicates, normalise


def _body(rng: random.Random, words: int) -> str:
    vocab = [f"w{i}" for i in range(3000)]
    return " ".join(rng.choice(vocab) for _ in range(words))


def _edit(text: str, rng: random.Random, changes: int) -> str:
    words = text.split()
    for _ in range(changes):
        words[rng.randrange(len(words))] = "changed"
    return " ".join(words)


def test_planted_pairs_in_two_thousand_bodies() -> None:
    rng = random.Random(7)
    items = [(f"knowledge/r{i:04d}.md", _body(rng, rng.randint(40, 160))) for i in range(2000)]
    planted = {(10, 1500), (42, 43), (700, 1999)}
    for a, b in planted:
        items[b] = (items[b][0], _edit(items[a][1], rng, 2))
    groups = near_duplicates(items, similarity=90, min_chars=80)
    found = {g.paths for g in groups}
    assert found == {(items[a][0], items[b][0]) for a, b in planted}
    for g in groups:
        assert all(score >= 90 for _, _, score in g.pairs)


def test_japanese_bodies() -> None:
    base = ("デプロイは必ずステージングで確認してから本番へ昇格する。"
            "失敗したら直前のイメージに戻し、原因を記録に残す。") * 2
    items = [
        ("knowledge/deploy-a.md", base),
        ("knowledge/deploy-b.md", base.replace("原因", "理由")),
        ("knowledge/other.md", "テストは pytest -q で走らせる。e2e はリリース前だけ。"
                               "ブラウザが必要なので数分かかる。" * 2),
    ]
    (group,) = near_duplicates(items, similarity=90, min_chars=20)
    assert group.paths == ("knowledge/deploy-a.md", "knowledge/deploy-b.md")


def test_group_of_three_is_one_candidate_and_short_bodies_are_ignored() -> None:
    text = "Retry the upload three times with exponential backoff, then surface the error to the user."
    items = [
        ("a.md", text),
        ("b.md", text + " Always."),
        ("c.md", "Note: " + text),
        ("d.md", "TBD"),
        ("e.md", "TBD"),
    ]
    (group,) = near_duplicates(items, similarity=90, min_chars=40)
    assert group.paths == ("a.md", "b.md", "c.md")


def test_whitespace_and_case_do_not_matter() -> None:
    assert normalise("  Use   SQLite\n\nin WAL ") == "use sqlite in wal"


def test_deterministic() -> None:
    rng = random.Random(3)
    items = [(f"r{i}.md", _body(rng, 60)) for i in range(300)]
    items.append(("copy.md", items[5][1]))
    assert near_duplicates(items, 90, 80) == near_duplicates(list(reversed(items)), 90, 80)


def test_many_exact_copies_form_one_group() -> None:
    text = "Template body that many records copied verbatim, with enough words to be compared at all."
    items = [(f"r{i:03d}.md", text) for i in range(120)] + [("other.md", "Something else entirely " * 5)]
    (group,) = near_duplicates(items, 90, 40)
    assert len(group.paths) == 120 and "other.md" not in group.paths
