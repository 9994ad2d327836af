"""What a consolidation run that gets nowhere spends: main's behaviour next to the no-progress stop.

Usage: python bench/no_progress_bench.py [--window 16384] [--max-iterations 60] [--timeout 1.0]

Each failure mode is a scripted model (the test harness's OpenAI-compatible server, real HTTP
through litellm) answering every call the same way, over the example workspace with two staging
items. "before" is main's behaviour (`consolidate.no_progress_turns = 0`: only
`consolidate.max_iterations` ends the run), "after" the default stop (3). Per mode: model calls,
tokens (as the server counts them: ~4 characters a token of what was sent), seconds, and the
reason the run gave. The timeout mode is a server slower than `memory.timeout_s` with
`memory.retries = 4`: main retried a timeout like any transient error (5 tries); a timeout is now
retried once. Main's code is not in this tree, so its timeout row is main's rule, not a run.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))

from support.fake_llm import FakeLLM, Reply, tool_call  # noqa: E402  (the test harness's server)

from memcli import history  # noqa: E402
from memcli.consolidate.run import Options, run  # noqa: E402
from memcli.staging import StagingFile  # noqa: E402
from memcli.workspace import Workspace  # noqa: E402

MODEL = "openai/fake-model"
NARRATION = ("I will first read the existing decisions, then compare them with the staging items, and "
             "then decide what to integrate. ") * 4
MODES = {
    "chat only": Reply(content=NARRATION),
    "tool call as text": Reply(content='{"name": "dispose", "arguments": {"items": ["i1"], "action": '
                               '"dropped", "reason": "x"}}'),
    "refused finish": Reply(tool_calls=[tool_call("finish_phase", {"note": "done"})]),
    "same invalid call": Reply(tool_calls=[tool_call("memory_read", {"path": "memory/decisions/nope.md"})]),
    "same read again": Reply(tool_calls=[tool_call("memory_read", {"path": "memory/summary.md"})]),
}
ITEMS = {"decisions": [{"title": "Job runner", "decision": "Move reminder jobs to a worker process",
                        "rationale": "jobs must survive restarts", "status": "resolved"}],
         "requests": [{"title": "Japanese", "request": "コミットメッセージは日本語で書いてよい"}]}


def _workspace(root: Path, *, window: int, max_iterations: int, no_progress: int, timeout: float,
               retries: int) -> Workspace:
    shutil.copytree(REPO / "examples" / "workspace", root)
    (root / "memcli.toml").write_text(
        f'[memory]\nconsolidation_model = "{MODEL}"\ncontext_tokens = {window}\nretries = {retries}\n'
        f"backoff_s = 0\nbackoff_max_s = 0\ntimeout_s = {timeout}\n"
        f"[consolidate]\nmax_iterations = {max_iterations}\nno_progress_turns = {no_progress}\n"
        "coalesce_runs = 0\n", encoding="utf-8")
    staging = StagingFile(id="s1", agent="claude-code", source={"session_id": "sess-1", "range": [4, 9]},
                          model=MODEL, prompt_version="bench", created_at="2026-05-20T10:00:00Z", items=ITEMS)
    (root / "memory" / "_staging").mkdir(parents=True, exist_ok=True)
    (root / "memory" / "_staging" / "s1.json").write_text(staging.model_dump_json(), encoding="utf-8")
    return Workspace.open(root)


def _run(fake: FakeLLM, reply: Reply, tmp: Path, name: str, **cfg) -> tuple[int, int, float, str]:
    ws = _workspace(tmp / name, **cfg)
    fake.requests.clear()
    fake.responder = lambda body: reply
    before = (ws.root / "memory/_staging/s1.json").read_bytes()
    started = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        code = run(ws, Options(no_commit=True, progress="off"))
    took = time.perf_counter() - started
    assert code == 1 and (ws.root / "memory/_staging/s1.json").read_bytes() == before, "staging changed"
    rows = [json.loads(line) for line in (ws.state_dir / "llm-calls.jsonl").read_text().splitlines()]
    tokens = sum(r["prompt_tokens"] + r["completion_tokens"] for r in rows)
    error = str((history.last(ws, "consolidate") or {}).get("error"))
    return fake.calls, tokens, took, error


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--window", type=int, default=16_384, help="memory.context_tokens of the scripted model")
    ap.add_argument("--max-iterations", type=int, default=60, help="consolidate.max_iterations (default 60)")
    ap.add_argument("--timeout", type=float, default=1.0, help="memory.timeout_s for the timeout mode")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp, FakeLLM() as fake:
        tmp_path = Path(tmp)
        os.environ.update(OPENAI_API_BASE=fake.url, OPENAI_BASE_URL=fake.url,
                          OPENAI_API_KEY="sk-bench-not-secret")
        os.environ.pop("MEMCLI_STATE_DIR", None)  # each workspace keeps its own call log
        base = {"window": args.window, "max_iterations": args.max_iterations, "timeout": 20.0, "retries": 1}
        print(f"consolidation, a model answering every call alike; max_iterations {args.max_iterations}, "
              f"window {args.window} tokens")
        print(f"{'mode':<18} {'calls before':>12} {'after':>6} {'tokens before':>14} {'after':>8} "
              f"{'ratio':>6} {'s before':>9} {'after':>6}  reason after")
        totals = [0, 0, 0, 0]
        for i, (mode, reply) in enumerate(MODES.items()):
            b = _run(fake, reply, tmp_path, f"b{i}", no_progress=0, **base)
            a = _run(fake, reply, tmp_path, f"a{i}", no_progress=3, **base)
            totals = [totals[0] + b[0], totals[1] + a[0], totals[2] + b[1], totals[3] + a[1]]
            print(f"{mode:<18} {b[0]:>12} {a[0]:>6} {b[1]:>14,} {a[1]:>8,} {b[1] / max(a[1], 1):>6.1f} "
                  f"{b[2]:>9.2f} {a[2]:>6.2f}  {a[3].split(' (the run stopped')[0]}")
        print(f"{'all modes':<18} {totals[0]:>12} {totals[1]:>6} {totals[2]:>14,} {totals[3]:>8,} "
              f"{totals[2] / max(totals[3], 1):>6.1f}")
        slow = Reply(delay=args.timeout * 3, content="late")
        a = _run(fake, slow, tmp_path, "timeout", no_progress=3,
                 **{**base, "timeout": args.timeout, "retries": 4})
        rule = 5 * args.timeout
        print(f"\ntimeout (server slower than memory.timeout_s={args.timeout:g}, memory.retries=4): "
              f"calls main's rule 5 (~{rule:.0f}s waiting), now {a[0]} in {a[2]:.1f}s")
        print(f"  {a[3]}")


if __name__ == "__main__":
    main()
