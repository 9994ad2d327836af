"""Nothing secret leaves the machine: asserted on what the fake server actually received."""

from __future__ import annotations

import json
import random
import string
from pathlib import Path

from extract.helpers import old, staged, write_jsonl
from support.fake_llm import FakeLLM, Reply

from memcli.extract.run import run
from memcli.workspace import Workspace

_rng = random.Random(7)


def rand(n: int, alphabet: str = string.ascii_letters + string.digits) -> str:
    return "".join(_rng.choice(alphabet) for _ in range(n))


# built at run time: no secret-shaped literal sits in the repository
SECRETS = {
    "aws": "AKIA" + rand(16, string.ascii_uppercase + string.digits),
    "github": "ghp_" + rand(36),
    "openai": "sk-proj-" + rand(60, string.ascii_letters + string.digits + "-_"),
    "anthropic": "sk-ant-api03-" + rand(80),
    "slack": "xoxb-" + rand(11, string.digits) + "-" + rand(12, string.digits) + "-" + rand(24),
    "stripe": "sk_live_" + rand(30),
    "jwt": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJtZW1jbGkifQ." + rand(43),
    "url": "Zq8" + rand(12),
    "password": "Pw!" + rand(14),
}
PRIVATE_KEY = "-----BEGIN EC PRIVATE KEY-----\n" + rand(64) + "\n-----END EC PRIVATE KEY-----"


def _transcript(path: Path) -> Path:
    s = SECRETS
    rows = [
        {"role": "user", "content": f"deploy with {s['aws']} and push using {s['github']}"},
        {"role": "assistant", "content": f"I'll set OPENAI_API_KEY={s['openai']} in .env",
         "tool_calls": [{"name": "Bash", "arguments": {
             "command": f"curl -H 'Authorization: Bearer {s['jwt']}' https://db:{s['url']}@h.example/x"}}]},
        {"role": "tool", "content": f"ANTHROPIC_API_KEY={s['anthropic']}\n{PRIVATE_KEY}",
         "tool_results": [{"content": f'{{"slack": "{s["slack"]}", "password": "{s["password"]}"}}'}]},
        {"role": "assistant", "content": f"Stripe key is {s['stripe']}; 日本語の説明も残る。", "final": True},
    ]
    return write_jsonl(path, [{**r, "timestamp": old()} for r in rows])


def test_no_secret_in_any_recorded_request(fake_llm: FakeLLM, ws: Workspace, tmp_path: Path, capsys) -> None:
    path = _transcript(tmp_path / "secrets.jsonl")
    assert run(ws, paths=[path]) == 0
    sent = fake_llm.sent_text()
    assert fake_llm.calls == 1
    for name, value in SECRETS.items():
        assert value not in sent, name
    assert "BEGIN EC PRIVATE KEY" not in sent and PRIVATE_KEY.splitlines()[1] not in sent
    assert "日本語の説明も残る" in sent and "[REDACTED:" in sent
    assert "redacted: " in capsys.readouterr().out


def test_a_secret_echoed_by_the_model_is_redacted_in_staging(fake_llm: FakeLLM, ws: Workspace,
                                                            tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "s.jsonl", [{"role": "user", "content": "hi", "timestamp": old()}])
    leaked = {"decisions": [], "discussions": [], "requests": [],
              "attempts": [{"title": "deploy", "outcome": f"worked with {SECRETS['github']}"}]}
    fake_llm.responder = lambda body: Reply(content=json.dumps(leaked))
    assert run(ws, paths=[path]) == 0
    [item] = staged(ws)[0].items.attempts
    assert SECRETS["github"] not in item.outcome and "[REDACTED:github-token]" in item.outcome
    raw = b"".join(p.read_bytes() for p in ws.staging_dir.iterdir())
    assert SECRETS["github"].encode() not in raw
