"""A generated workspace for the speed benches: `count` valid records spread over every record folder,
knowledge shown in the resident context (`model_invocation: true`), a summary, and a memcli.toml.

    from workspace_gen import generate
    generate(Path("/tmp/ws"), 500)
"""

from __future__ import annotations

import os
import random
import time
from pathlib import Path

WORDS = """sqlite postgres cache redis queue worker thread deploy release migration schema index backup
restore retry timeout latency api endpoint version auth token session cookie login user admin billing
invoice payment refund email reminder notification webhook cron job batch import export csv json yaml
config feature flag rollout canary monitor alert metric log trace error crash bug fix test fixture mock
docker kubernetes helm terraform ci pipeline lint format typing python fastapi pydantic celery sentry
search ranking tokenizer japanese unicode locale timezone date calendar report dashboard chart""".split()
JA = ["データベース", "バックアップ", "日本語", "コミット", "設定", "検索", "認証", "通知", "移行", "障害"]
KNOWLEDGE_KINDS = ["rule", "policy", "howto", "fact", "term"]
DATES = "created_at: 2026-04-01T10:00:00+09:00\nupdated_at: 2026-04-{day:02d}T10:00:00+09:00\n"
SOURCE = "  - session_id: s{n}\n    range: [0, 4]\n"


def sentence(rng: random.Random, n: int, vocabulary: list[str] = WORDS) -> str:
    words = [rng.choice(vocabulary) for _ in range(n)]
    if rng.random() < 0.3:
        words.insert(rng.randrange(len(words)), rng.choice(JA) + "の" + rng.choice(JA))
    return " ".join(words).capitalize() + "."


def _front(folder: str, i: int, rng: random.Random) -> str:
    dates = DATES.format(day=1 + i % 28)
    if folder == "memory/decisions":
        return f"{dates}status: {rng.choice(['open', 'resolved'])}\nsources:\n{SOURCE.format(n=i)}"
    if folder == "memory/requests":
        return f"{dates}sources:\n{SOURCE.format(n=i)}"
    if folder == "memory/workflow":
        return (f"{dates}description: {sentence(rng, 8)}\nauto_invoke: false\nuser_invocable: true\n"
                "requires: []\n")
    return (f"{dates}kind: {rng.choice(KNOWLEDGE_KINDS)}\ndescription: {sentence(rng, 8)}\n"
            f"model_invocation: true\nuser_invocable: true\nlast_sources:\n{SOURCE.format(n=i)}")


def generate(root: Path, count: int, seed: int = 7) -> Path:
    rng = random.Random(seed)
    folders = ["memory/decisions", "memory/requests", "knowledge", "knowledge", "memory/workflow"]
    for folder in set(folders):
        (root / folder).mkdir(parents=True, exist_ok=True)
    (root / "memcli.toml").write_text("[memory]\n", encoding="utf-8")
    summary = "\n\n".join(sentence(rng, 30) for _ in range(12))
    front = "---\nupdated_at: 2026-04-02T10:00:00+09:00\n---\n"
    (root / "memory" / "summary.md").write_text(f"{front}# Project summary\n\n{summary}\n", encoding="utf-8")
    old = time.time() - 86_400  # mtimes old enough for the caches to trust without re-hashing
    for i in range(count):
        folder = folders[i % len(folders)]
        slug = "-".join(rng.sample(WORDS, 3)) + f"-{i}"
        body = "\n\n".join(sentence(rng, rng.randint(10, 40)) for _ in range(rng.randint(2, 6)))
        path = root / folder / f"{slug}.md"
        path.write_text(f"---\n{_front(folder, i, rng)}---\n{body}\n", encoding="utf-8")
        os.utime(path, (old, old))
    return root
