"""What a coding agent as the model costs memcli, beside a litellm model, in one run.

Usage: python bench/agent_model_bench.py [--runs 5] [--agents claude-code,codex]

Each round runs `memcli extract --path ONE.jsonl` of the same small transcript in a fresh workspace,
once per backend, interleaved: `openai/fake-model` through litellm to the scripted OpenAI server
(the baseline), and `agent/<name>` through the pinned agent (tests/e2e/node_modules) to its scripted
server. Every server answers the same extraction at once, so the figures are memcli's and the
agent's own overhead: wall seconds of the whole command (median), and the characters of the model
requests it sent (the agent's framing over memcli's prompt). Nothing is judged:
it prints the table (the scripted servers report made-up token counts, so the size of what each
backend sent is shown as characters of its model requests). Needs `npm ci --prefix tests/e2e` for the agents.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from e2e.test_codex import KEY_VAR, codex_config  # noqa: E402
from support.agent_server import Turn  # noqa: E402
from support.anthropic_server import AnthropicServer  # noqa: E402
from support.claude_transcript import assistant_text, user, write_session  # noqa: E402
from support.fake_llm import FAKE_KEY, FAKE_MODEL, FakeLLM, Reply  # noqa: E402
from support.responses_server import ResponsesServer  # noqa: E402

BIN = REPO / "tests" / "e2e" / "node_modules" / ".bin"
ANSWER = {"decisions": [{"title": "Queue in SQLite", "decision": "Keep the job queue in SQLite",
                         "rationale": "one less server", "status": "resolved"}],
          "discussions": [], "attempts": [], "requests": []}


def _workspace(home: Path, model: str) -> tuple[Path, Path]:
    root = Path(tempfile.mkdtemp(prefix="bench-ws-"))
    (root / "memory" / "_staging").mkdir(parents=True)
    (root / "memcli.toml").write_text(f'[memory]\nextract_model = "{model}"\ncontext_tokens = 128000\n'
                                      "[extract]\nidle_minutes = 0\n", encoding="utf-8")
    path = write_session(home / ".claude", root, [
        ("user", user("Let's keep the job queue in SQLite, not Redis: one less server to run.")),
        ("assistant", assistant_text("Agreed: the queue stays in SQLite.", "m1"))])
    return root, path


def _one(model: str, env: dict[str, str], script: object, requests: object) -> tuple[float, int]:
    home = Path(env["HOME"])
    root, path = _workspace(home, model)
    script()  # type: ignore[operator]
    before = len(requests())  # type: ignore[operator]
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "memcli", "extract", "--path", str(path)], cwd=root,
                          env={**env, "MEMCLI_STATE_DIR": str(root / ".memcli")}, capture_output=True,
                          text=True, timeout=300)
    seconds = time.monotonic() - started
    if done.returncode != 0:
        raise SystemExit(f"{model}: extract failed: {done.stderr.strip()[-300:]}")
    sent = requests()[before:]  # type: ignore[operator]
    return seconds, sum(len(json.dumps(getattr(r, "body", r), ensure_ascii=False)) for r in sent)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--agents", default="claude-code,codex")
    args = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="bench-home-"))
    base = {k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_PROXY"))}
    base.update(HOME=str(home), PATH=f"{BIN}{os.pathsep}{base['PATH']}", NO_PROXY="127.0.0.1")
    fake, claude, codex = FakeLLM(), AnthropicServer(), ResponsesServer()
    fake.responder = lambda body: Reply(content=json.dumps(ANSWER))
    with fake, claude, codex:
        (home / ".codex").mkdir(exist_ok=True)
        (home / ".codex" / "config.toml").write_text(codex_config(codex.url), encoding="utf-8")
        backends = {FAKE_MODEL: ({**base, "OPENAI_API_BASE": fake.url, "OPENAI_API_KEY": FAKE_KEY},
                                 lambda: None, lambda: fake.requests)}
        agents = args.agents.split(",")
        if "claude-code" in agents:
            backends["agent/claude-code"] = (
                {**base, "ANTHROPIC_BASE_URL": claude.url, "ANTHROPIC_API_KEY": "sk-ant-bench",
                 "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1"},
                lambda: claude.script(Turn(tool="StructuredOutput", args=ANSWER)), claude.model_requests)
        if "codex" in agents:
            backends["agent/codex"] = ({**base, KEY_VAR: "sk-bench"},
                                       lambda: codex.script(Turn(text=json.dumps(ANSWER))),
                                       codex.model_requests)
        times: dict[str, list[float]] = {m: [] for m in backends}
        tokens: dict[str, int] = {}
        for _ in range(args.runs):
            for model, (env, script, requests) in backends.items():
                seconds, used = _one(model, env, script, requests)
                times[model].append(seconds)
                tokens[model] = used
    baseline = statistics.median(times[FAKE_MODEL])
    print(f"memcli extract of one small transcript, median of {args.runs} (interleaved)")
    print(f"{'backend':<22} {'seconds':>8} {'x litellm':>10} {'request chars':>14}")
    for model in backends:
        median = statistics.median(times[model])
        print(f"{model:<22} {median:8.2f} {median / baseline:10.2f} {tokens[model]:14d}")


if __name__ == "__main__":
    main()
