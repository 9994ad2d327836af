"""The silence after a model command's summary: seconds from its last line of output to its exit.

Usage: python bench/exit_bench.py [--runs 5]

Each round runs `memcli extract --path ONE.jsonl` of the same small transcript, in a fresh
workspace, against the
scripted OpenAI-compatible server through litellm, twice, interleaved: through the installed
executable's entry (memcli.entry: exit handlers, then no interpreter teardown) and through the
Typer CLI's own `main` (memcli.cli: `sys.exit`, the whole teardown) as the baseline. It prints
the medians of the whole command and of the silence after the last line, and their ratio.
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

from support.fake_llm import FAKE_KEY, FAKE_MODEL, FakeLLM, Reply  # noqa: E402

ANSWER = {"decisions": [{"title": "Queue in SQLite", "decision": "Keep the job queue in SQLite",
                         "rationale": "one less server"}], "discussions": [], "attempts": [], "requests": []}
ROUTES = {"entry (leave)": "from memcli.entry import main; main()",
          "cli (sys.exit)": "from memcli.cli import main; main()"}


def _timed(code: str, argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    start = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-c", code, *argv], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    last = start
    assert proc.stdout is not None
    for _ in proc.stdout:
        last = time.monotonic()
    proc.wait()
    end = time.monotonic()
    if proc.returncode != 0:
        raise SystemExit(f"memcli extract exited {proc.returncode}")
    return end - start, end - last


def _workspace(root: Path) -> Path:
    (root / "memory").mkdir(parents=True)
    (root / "memcli.toml").write_text(f'[memory]\nextract_model = "{FAKE_MODEL}"\n'
                                      "[extract]\nidle_minutes = 0\n", encoding="utf-8")
    return root


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, FakeLLM() as fake:
        transcript = Path(tmp) / "chat.jsonl"
        transcript.write_text("".join(json.dumps({"role": ("user", "assistant")[i % 2],
                                                  "content": f"message {i}: keep the queue in SQLite",
                                                  "timestamp": "2026-01-01T00:00:00Z"}) + "\n"
                                      for i in range(6)), encoding="utf-8")
        fake.responder = lambda body: Reply(content=json.dumps(ANSWER))
        env = dict(os.environ, OPENAI_API_BASE=fake.url, OPENAI_BASE_URL=fake.url, OPENAI_API_KEY=FAKE_KEY,
                   PYTHONPATH=str(REPO))
        figures: dict[str, list[tuple[float, float]]] = {name: [] for name in ROUTES}
        for n in range(args.runs):
            for name, code in ROUTES.items():
                root = _workspace(Path(tmp) / f"ws-{n}-{len(figures[name])}-{name[:3]}")
                argv = ["extract", "--path", str(transcript), "-w", str(root)]
                figures[name].append(_timed(code, argv, env))
    base = statistics.median(s for _, s in figures["cli (sys.exit)"])
    print(f"{'route':<16} {'command s':>10} {'silence s':>10} {'silence ×':>10}   (medians of {args.runs})")
    for name, runs in figures.items():
        whole = statistics.median(w for w, _ in runs)
        silence = statistics.median(s for _, s in runs)
        print(f"{name:<16} {whole:>10.2f} {silence:>10.2f} {silence / base:>10.2f}")


if __name__ == "__main__":
    main()
