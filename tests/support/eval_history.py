"""A generated session history with planted repetitions, for `memcli eval`'s detector.

    history = generate(seed=3, sessions=60)
    history.write(folder)            # one memcli JSONL file per session
    history.truth                    # {(session_id, line, sentence): label} of every planted directive
    score(history, groups)           # precision / recall of detected groups against the truth

What is planted, per seed (random.Random(seed)):
* **repetitions**: standing instructions, corrections and preferences, each given in 2–5 sessions,
  each time in another wording: English paraphrases, Japanese translations, most with code
  identifiers (`pathlib.Path`, `make test`, `API_KEY`), as a prompt of its own or after the task;
* **near misses**: the same instruction with another value ("use yarn" where the repetition is
  "use pnpm", "indent with tabs" / "with spaces"), said once elsewhere; and one-off instructions;
* **non-instructions said everywhere**: "thanks", "continue", 「続けて」, questions about the same
  topics ("why did you use npm?"), and a unique task per prompt ("Fix the failing test in
  src/billing/invoice.py."), among them tasks that share a file or a function;
* **the instruction where the user did not type it**: the agent repeating it, a tool's output
  holding it (a CONTRIBUTING file), injected context (an AGENTS.md); none of those may count.

The label of a planted directive is its family and value ("pkg:pnpm"); two statements are a true
pair when they carry the same label and come from different sessions.
"""

from __future__ import annotations

import datetime as dt
import json
import random
from dataclasses import dataclass, field
from pathlib import Path

# family: (values or None, English wordings, Japanese wordings); {v} is the value, {j} its Japanese
FAMILIES: dict[str, tuple[tuple[str, ...] | None, tuple[str, ...], tuple[str, ...]]] = {
    "pkg": (("pnpm", "yarn", "bun"), (
        "Use {v} instead of npm.",
        "Please install packages with `{v}`, not npm.",
        "We use {v} in this repo, don't run npm install.",
        "Don't use npm here, {v} only.",
    ), (
        "npmじゃなくて{v}を使って。",
        "パッケージのインストールは{v}でお願いします。",
        "npmは使わないで、{v}を使ってください。",
    )),
    "commit-lang": (("English", "Japanese"), (
        "Write commit messages in {v}.",
        "Commit messages should always be in {v}.",
        "Please keep the commit messages {v}.",
    ), (
        "コミットメッセージは{j}で書いてください。",
        "コミットメッセージは必ず{j}にして。",
    )),
    "test-framework": (("pytest", "unittest"), (
        "Write the tests with {v}.",
        "Use {v} for the tests.",
        "All new tests must use `{v}`.",
    ), (
        "テストは{v}で書いて。",
        "テストには必ず{v}を使うこと。",
    )),
    "indent": (("tabs", "spaces"), (
        "Indent with {v}.",
        "Always use {v} for indentation.",
        "Please indent the code with {v}.",
    ), (
        "インデントは{j}でお願いします。",
        "インデントには{j}を使って。",
    )),
    "reply-lang": (("Japanese", "English"), (
        "Answer me in {v}.",
        "Please reply in {v}.",
        "Always respond in {v}.",
    ), (
        "{j}で答えてください。",
        "返答は{j}でお願いします。",
    )),
    "formatter": (("ruff", "black"), (
        "Format the code with {v} before committing.",
        "Run `{v} format` before every commit.",
        "Always format with {v} before you commit.",
    ), (
        "コミット前に{v}でフォーマットして。",
        "コミットする前に必ず`{v} format`を実行して。",
    )),
    "logger": (None, (
        "Don't use print for debugging, use the `logger` from `app.log`.",
        "No print statements, log with `app.log.logger` instead.",
        "Use the logger in `app.log` rather than print.",
    ), (
        "デバッグにprintを使わないで、`app.log`のloggerを使って。",
        "printではなく`app.log`のloggerでログを出して。",
    )),
    "fstrings": (None, (
        "Use f-strings instead of `.format()`.",
        "Please stop using `.format()`, f-strings only.",
        "Prefer f-strings over `.format()` calls.",
    ), (
        "`.format()`ではなくf-stringを使って。",
        "文字列の組み立てはf-stringでお願いします、`.format()`は使わないで。",
    )),
    "test-before-commit": (None, (
        "Run `make test` before every commit.",
        "Always run make test before you commit.",
        "Make sure `make test` passes before committing.",
    ), (
        "コミットする前に必ず`make test`を実行して。",
        "`make test`が通ってからコミットしてください。",
    )),
    "force-push": (None, (
        "Never force-push to `main`.",
        "Do not `git push --force` on main.",
        "Don't force push the main branch.",
    ), (
        "mainにforce pushしないで。",
        "mainブランチへの`git push --force`は禁止です。",
    )),
    "utc": (None, (
        "Store timestamps in UTC.",
        "All times in the database must be UTC.",
        "Always save `created_at` in UTC, not local time.",
    ), (
        "タイムスタンプはUTCで保存して。",
        "データベースの時刻は必ずUTCにすること。",
    )),
    "pathlib": (None, (
        "Use `pathlib.Path` instead of `os.path`.",
        "Don't use os.path, use pathlib.Path.",
        "Please switch from `os.path` to `pathlib.Path`.",
    ), (
        "`os.path`じゃなくて`pathlib.Path`を使って。",
        "パスの操作は`os.path`ではなく`pathlib.Path`でお願いします。",
    )),
    "no-deps": (None, (
        "Don't add new dependencies without asking me.",
        "Ask me before adding any dependency.",
        "Never add a package to `pyproject.toml` without asking first.",
    ), (
        "勝手に依存を追加しないで。",
        "新しい依存を追加する前に必ず聞いて。",
    )),
    "api-key": (None, (
        "Read the API key from the `API_KEY` env var, never hardcode it.",
        "Don't hardcode the API key; take it from `API_KEY`.",
        "The key must come from the `API_KEY` environment variable.",
    ), (
        "APIキーはハードコードしないで、環境変数`API_KEY`から読んで。",
        "APIキーは必ず`API_KEY`環境変数から取得すること。",
    )),
    "dataclass": (None, (
        "Use frozen dataclasses for value objects.",
        "Value objects should be `@dataclass(frozen=True)`.",
        "Please make the value objects frozen dataclasses.",
    ), (
        "値オブジェクトにはfrozenなdataclassを使って。",
        "値オブジェクトは`@dataclass(frozen=True)`にしてください。",
    )),
    "plan-first": (None, (
        "Explain your plan before changing any code.",
        "Before you edit anything, tell me the plan.",
        "Always describe the plan first, then change the code.",
    ), (
        "コードを変更する前に計画を説明して。",
        "編集する前に必ずプランを教えてください。",
    )),
    "db-mock": (None, (
        "Don't mock the database in tests; use the `test_db` fixture.",
        "Use the test_db fixture instead of mocking the database.",
        "No database mocks in the tests, `test_db` only.",
    ), (
        "テストでデータベースをモックしないで、`test_db`フィクスチャを使って。",
        "データベースはモックではなく`test_db`を使うこと。",
    )),
    "short-functions": (None, (
        "Keep functions under 50 lines.",
        "No function longer than 50 lines, please.",
        "Split any function that grows past 50 lines.",
    ), (
        "関数は50行以内にして。",
        "50行を超える関数は分割してください。",
    )),
    "changelog": (None, (
        "Update `CHANGELOG.md` when you change behaviour.",
        "Every behaviour change needs an entry in CHANGELOG.md.",
        "Remember to add a CHANGELOG.md line for user-visible changes.",
    ), (
        "挙動を変えたら`CHANGELOG.md`を更新して。",
        "動作の変更は必ず`CHANGELOG.md`に書いてください。",
    )),
    "httpx": (None, (
        "Use `httpx.AsyncClient`, not `requests`.",
        "Don't use requests; use httpx.AsyncClient.",
        "Please replace `requests` with `httpx.AsyncClient`.",
    ), (
        "`requests`ではなく`httpx.AsyncClient`を使って。",
        "HTTPは`httpx.AsyncClient`でお願いします、`requests`は使わないで。",
    )),
    "bare-except": (None, (
        "Don't catch bare `Exception`; catch the specific error.",
        "Never write `except Exception:`, catch what can actually fail.",
        "Catch specific exceptions instead of `Exception`.",
    ), (
        "`Exception`をそのままキャッチしないで、具体的な例外を捕まえて。",
        "`except Exception:`は禁止、具体的な例外を書いてください。",
    )),
    "snake-files": (None, (
        "Name new files in snake_case.",
        "File names must be snake_case.",
        "Please use snake_case for file names.",
    ), (
        "新しいファイル名はsnake_caseにして。",
        "ファイル名は必ずsnake_caseで付けてください。",
    )),
}
_JA = {"English": "英語", "Japanese": "日本語", "tabs": "タブ", "spaces": "スペース"}

ACKS = ("thanks", "Thanks!", "continue", "Continue.", "looks good", "ok", "go ahead", "yes",
        "great, that works", "do it again", "続けて", "ありがとう", "OK、進めて", "いいですね", "はい")
QUESTIONS = ("Why did you use npm?", "Do we use pnpm here?", "What does `{f}` do?", "Why did the build fail?",
             "Is UTC what the database stores?", "どうしてテストが失敗したの？", "`{f}`は何をしていますか？",
             "Which formatter does this repo use?")
# (what the task is about, wording): two wordings with the same key are the same task
TASKS = (("fix:{p}", "Fix the failing test in {p}."), ("test:{f}", "Add a test for `{f}` in {p}."),
         ("refactor:{f}", "Refactor `{f}` in {p} to be shorter."),
         ("option:{cmd}:{flag}", "Add a `--{flag}` option to the `{cmd}` command."),
         ("slow:{f}", "Find out why `{f}` is slow."),
         ("page:{w1}", "Implement pagination for the `/{w1}` endpoint."),
         ("rename:{f}", "Rename `{f}` to `{g}`."), ("bug:{f}", "{p}の`{f}`のバグを直して。"),
         ("test:{f}", "`{f}`のテストを追加して。"),
         ("option:{cmd}:{flag}", "`{cmd}`コマンドに`--{flag}`オプションを追加して。"))
_WORDS = ("billing invoice user order cart report export import search index cache queue worker mail auth "
          "session token config plugin parser render chart upload image audit metric schedule ledger "
          "payment refund coupon stock price tax address profile avatar comment review rating badge "
          "feed digest alert webhook backup archive").split()
_VERBS = ("load save parse build send fetch check render update compute merge split sync resolve "
          "validate normalize encode decode").split()


@dataclass
class History:
    seed: int
    sessions: list[tuple[str, list[dict]]] = field(default_factory=list)  # (session id, lines)
    truth: dict[tuple[str, int, str], str] = field(default_factory=dict)
    tasks: set[str] = field(default_factory=set)

    def write(self, folder: Path) -> list[Path]:
        folder.mkdir(parents=True, exist_ok=True)
        out = []
        for sid, lines in self.sessions:
            path = folder / f"{sid}.jsonl"
            path.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines),
                            encoding="utf-8")
            out.append(path)
        return out

    def labels(self) -> dict[str, set[str]]:
        """label → the sessions it was planted in."""
        out: dict[str, set[str]] = {}
        for (sid, _, _), label in self.truth.items():
            out.setdefault(label, set()).add(sid)
        return out


def _wording(rng: random.Random, family: str, value: str | None, ja_share: float) -> str:
    _, en, ja = FAMILIES[family]
    template = rng.choice(ja if rng.random() < ja_share else en)
    return template.format(v=value or "", j=_JA.get(value or "", value or ""))


class _Session:
    def __init__(self, sid: str, day: dt.datetime) -> None:
        self.sid, self.day, self.lines = sid, day, []

    def add(self, role: str, content: str, **extra: object) -> int:
        stamp = self.day + dt.timedelta(minutes=len(self.lines))
        line = {"role": role, "content": content, "timestamp": stamp.isoformat().replace("+00:00", "Z")}
        if not self.lines:
            line["session_id"] = self.sid
        line.update(extra)
        self.lines.append(line)
        return len(self.lines) - 1


def _task(rng: random.Random, history: History, names: dict[str, str]) -> str:
    """A task asked once in the whole history (asked twice, in any wording, it would be a real
    repetition): its subject (the function, file, command or endpoint) is never reused for the same
    kind of task; other kinds of task may name the same function or file."""
    for _ in range(200):
        key, wording = rng.choice(TASKS)
        if key.format(**names) not in history.tasks:
            break
        names = _names(rng)
    history.tasks.add(key.format(**names))
    return wording.format(**names)


def _names(rng: random.Random) -> dict[str, str]:
    a, b = rng.sample(_WORDS, 2)
    return {"p": f"src/{a}/{b}.py", "f": f"{rng.choice(_VERBS)}_{rng.choice(_WORDS)}",
            "g": f"{rng.choice(_VERBS)}_{rng.choice(_WORDS)}_{rng.choice(_WORDS)}",
            "flag": f"{rng.choice(_WORDS)}-{rng.choice(_WORDS)}", "cmd": rng.choice(_WORDS),
            "w1": rng.choice(_WORDS)}


def generate(seed: int, sessions: int = 60, repeated: int = 12, ja_share: float = 0.3,
             start: dt.datetime | None = None, tool_chars: int = 0) -> History:
    """A history of `sessions` sessions with `repeated` planted repetitions (see the module doc);
    `tool_chars`: pad each session's tool output to about that size (for the speed bench)."""
    rng = random.Random(seed)
    start = start or dt.datetime(2026, 1, 1, 9, 0, tzinfo=dt.UTC)
    history = History(seed)
    plan: dict[int, list[tuple[str, str, str | None]]] = {i: [] for i in range(sessions)}
    families = list(FAMILIES)
    rng.shuffle(families)
    chosen = families[:repeated]
    for family in chosen:
        values = FAMILIES[family][0]
        value = rng.choice(values) if values else None
        label = f"{family}:{value or ''}"
        for si in rng.sample(range(sessions), min(sessions, rng.randint(2, 5))):
            plan[si].append((label, family, value))
        if values and rng.random() < 0.6:  # a near miss: the same instruction with another value, once
            other = rng.choice([v for v in values if v != value])
            plan[rng.randrange(sessions)].append((f"{family}:{other}", family, other))
    for family in families[repeated:]:  # instructions said once: never a repetition
        if rng.random() < 0.7:
            values = FAMILIES[family][0]
            value = rng.choice(values) if values else None
            plan[rng.randrange(sessions)].append((f"{family}:{value or ''}", family, value))
    for si in range(sessions):
        history.sessions.append(_session(rng, history, si, start + dt.timedelta(hours=12 * si), plan[si],
                                         ja_share, chosen, seed, tool_chars))
    return history


def _session(rng: random.Random, history: History, si: int, day: dt.datetime,
             planted: list[tuple[str, str, str | None]], ja_share: float, chosen: list[str],
             seed: int, tool_chars: int) -> tuple[str, list[dict]]:
    sid = f"gen{seed}-{si:04d}"
    s = _Session(sid, day)
    if rng.random() < 0.3:  # an AGENTS.md the agent injected: instructions the user did not type here
        family = rng.choice(chosen)
        values = FAMILIES[family][0]
        rule = _wording(rng, family, values[0] if values else None, 0.0)
        s.add("user", "# AGENTS.md\n" + rule, injected=True)
    names = _names(rng)
    task = _task(rng, history, names)
    planted = list(planted)
    first = planted.pop(0) if planted and rng.random() < 0.5 else None
    text = task
    if first:
        sentence = _wording(rng, first[1], first[2], ja_share)
        text = f"{task} {sentence}" if not task.endswith("。") else task + sentence
    line = s.add("user", text)
    if first:
        history.truth[(sid, line, sentence)] = first[0]
    s.add("assistant", f"I'll start with `{names['f']}`.", tool_calls=[{"name": "Read", "arguments":
                                                                        {"path": names["p"]}, "id": "c1"}])
    tool_text = "def x(): pass"
    if rng.random() < 0.2:  # a CONTRIBUTING file in a tool's output
        family = rng.choice(chosen)
        values = FAMILIES[family][0]
        tool_text = "CONTRIBUTING.md\n" + _wording(rng, family, values[0] if values else None, 0.0)
    if tool_chars:
        filler = " ".join(f"{rng.choice(_VERBS)}_{rng.choice(_WORDS)}()" for _ in range(tool_chars // 16))
        tool_text = f"{tool_text}\n{filler}"
    s.add("tool", tool_text, tool_results=[{"content": tool_text, "id": "c1"}])
    for label, family, value in planted:
        sentence = _wording(rng, family, value, ja_share)
        line = s.add("user", sentence)
        history.truth[(sid, line, sentence)] = label
        echo = _wording(rng, family, value, 0.0)
        s.add("assistant", f"Understood. {echo}" if rng.random() < 0.5 else "Done.")
    for _ in range(rng.randint(1, 3)):
        noise = rng.choice(ACKS) if rng.random() < 0.7 else rng.choice(QUESTIONS).format(**names)
        s.add("user", noise)
        s.add("assistant", "Sure.")
    if rng.random() < 0.5:
        s.add("user", _task(rng, history, _names(rng)))
        s.add("assistant", "Done.", final=True)
    return sid, s.lines


def score(history: History, found: list[list[tuple[str, int, str]]]) -> dict[str, float]:
    """Precision and recall over cross-session pairs of statements, and of whole repetitions.

    `found`: the detected groups, each a list of (session id, line, statement text)."""
    truth = history.truth
    true_pairs = 0
    by_label: dict[str, list[str]] = {}
    for (sid, _, _), label in truth.items():
        by_label.setdefault(label, []).append(sid)
    for sids in by_label.values():
        true_pairs += sum(1 for i in range(len(sids)) for j in range(i + 1, len(sids)) if sids[i] != sids[j])
    predicted = correct = 0
    groups_ok = 0
    hit_labels: set[str] = set()
    for group in found:
        labels = [truth.get(key) for key in group]
        for i in range(len(group)):
            for j in range(i + 1, len(group)):
                if group[i][0] == group[j][0]:
                    continue
                predicted += 1
                if labels[i] is not None and labels[i] == labels[j]:
                    correct += 1
                    hit_labels.add(labels[i])
        sessions_by_label: dict[str | None, set[str]] = {}
        for key, label in zip(group, labels, strict=True):
            sessions_by_label.setdefault(label, set()).add(key[0])
        best = max(sessions_by_label.items(), key=lambda kv: len(kv[1]))
        groups_ok += best[0] is not None and len(best[1]) >= 2 and len(sessions_by_label) == 1
    repeated = [label for label, sids in by_label.items() if len(set(sids)) >= 2]
    return {
        "pair_precision": correct / predicted if predicted else 1.0,
        "pair_recall": correct / true_pairs if true_pairs else 1.0,
        "group_precision": groups_ok / len(found) if found else 1.0,
        "group_recall": len(hit_labels & set(repeated)) / len(repeated) if repeated else 1.0,
        "found": len(found),
        "planted": len(repeated),
    }
