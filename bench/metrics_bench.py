"""Benchmark `memcli metrics` over generated transcripts, side by side with the floor.

Usage: python bench/metrics_bench.py [--mb 500] [--file-mb 8] [--keep DIR]

Generates Claude Code and Codex transcripts (half each, real line shapes, large tool outputs) with a
known number of explicit invokes in a temp folder, then measures, each in a fresh process so peak
memory (ru_maxrss) belongs to that step alone:
  floor: lines   read every byte line by line (the least any reader must do)
  floor: json    json.loads every line (the least a JSONL reader must do)
  metrics full   first count: every session read by the adapters, invokes detected, state saved
  metrics again  nothing changed: every file skipped by size/mtime
  +1% reparse    1% new lines appended to a tenth of the files; grown files re-parsed from
                 line 0, only the new entries counted (the former way; a copy of the state)
  +1% resume     the same, each grown file read from the reader position saved in the state
                 (both must find the same invokes: checked)
  figures        load_metrics(): the saved state resolved against the records, no transcript read
The invokes found must equal the invokes generated (printed as a check, exit 1 if not).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RECORDS = 200
CWD = "/home/dev/bench-project"
_OUTPUT = ("def handler(request):\n    return render(request, 'index.html', context)\n" * 40)[:3000]


def _claude_lines(session: str, n: int, day: str) -> tuple[list[str], int]:
    """One turn of a Claude Code session: (lines, invokes in them)."""
    ts = f"{day}T10:{n % 60:02d}:00.000Z"
    base = {"parentUuid": None, "isSidechain": False, "userType": "external", "cwd": CWD,
            "sessionId": session, "version": "2.0.64", "timestamp": ts}
    slug = f"topic-{n % RECORDS}"
    invokes = 0
    prompt = f"please fix the handler for case {n}"
    if n % 7 == 0:
        prompt += f" and follow #{slug}"
        invokes += 1
    lines = [{"type": "user", "uuid": f"u{n}", "message": {"role": "user", "content": prompt}}]
    if n % 5 == 0:
        args: dict = {"file_path": f"{CWD}/knowledge/{slug}.md"}
        call = {"type": "tool_use", "id": f"toolu_{n}", "name": "Read", "input": args}
        invokes += 1
    else:
        args = {"command": f"grep -rn handler src/ | head -{n % 50}"}
        call = {"type": "tool_use", "id": f"toolu_{n}", "name": "Bash", "input": args}
    usage = {"input_tokens": 12000 + n % 900, "output_tokens": 200, "cache_read_input_tokens": 30000}
    lines.append({"type": "assistant", "uuid": f"a{n}", "message": {
        "id": f"msg_{session[:8]}_{n}", "role": "assistant", "model": "claude-sonnet-4",
        "content": [{"type": "text", "text": "Let me look at the code first."}, call],
        "usage": usage, "stop_reason": "tool_use"}})
    lines.append({"type": "user", "uuid": f"r{n}", "message": {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": f"toolu_{n}", "content": _OUTPUT}]}})
    lines.append({"type": "assistant", "uuid": f"b{n}", "message": {
        "id": f"msg_{session[:8]}_{n}_b", "role": "assistant", "model": "claude-sonnet-4",
        "content": [{"type": "text", "text": "The handler renders the template with its context. " * 4}],
        "usage": usage, "stop_reason": "end_turn"}})
    return [json.dumps(base | line, ensure_ascii=False) for line in lines], invokes


def _codex_lines(session: str, n: int, day: str) -> tuple[list[str], int]:
    ts = f"{day}T10:{n % 60:02d}:00.000Z"
    slug = f"topic-{n % RECORDS}"
    invokes = 0
    prompt = f"ハンドラーを直して ({n})"
    if n % 7 == 0:
        prompt += f" #{slug} に従って"
        invokes += 1
    if n % 5 == 0:
        cmd = f"sed -n '1,120p' knowledge/{slug}.md"
        invokes += 1
    else:
        cmd = f"rg -n handler src/ | head -{n % 50}"
    lines = [
        {"type": "event_msg", "payload": {"type": "user_message", "message": prompt, "images": []}},
        {"type": "response_item", "payload": {"type": "function_call", "name": "exec_command",
                                              "arguments": json.dumps({"cmd": cmd, "workdir": CWD}),
                                              "call_id": f"call_{n}"}},
        {"type": "response_item", "payload": {"type": "function_call_output", "call_id": f"call_{n}",
                                              "output": _OUTPUT}},
        {"type": "event_msg", "payload": {"type": "token_count", "info": {"total_token_usage": {
            "input_tokens": 40000 * (n + 1), "output_tokens": 300 * (n + 1),
            "total_tokens": 40300 * (n + 1)}}}},
        {"type": "response_item", "payload": {"type": "message", "role": "assistant", "content": [
            {"type": "output_text", "text": "直しました。テンプレートに正しい値を渡しています。" * 3}]}},
    ]
    return [json.dumps({"timestamp": ts} | line, ensure_ascii=False) for line in lines], invokes


def generate(root: Path, total_mb: float, file_mb: float) -> tuple[Path, Path, int, int]:
    ws, sessions = root / "ws", root / "sessions"
    (ws / "knowledge").mkdir(parents=True)
    for i in range(RECORDS):
        (ws / "knowledge" / f"topic-{i}.md").write_text(
            "---\ncreated_at: 2026-01-01T00:00:00Z\nupdated_at: 2026-01-01T00:00:00Z\nkind: fact\n"
            f"description: topic {i}\nmodel_invocation: false\nuser_invocable: true\nlast_sources: []\n---\n"
            f"Fact number {i}.\n", encoding="utf-8")
    (ws / "memory").mkdir()
    sessions.mkdir()
    target, written, invokes, files = total_mb * 1e6, 0, 0, 0
    while written < target:
        files += 1
        codex = files % 2 == 0
        sid = f"0000{files:04d}-aaaa-4bbb-8ccc-{files:012d}"
        day = f"2026-05-{files % 28 + 1:02d}"
        path = sessions / (f"rollout-{day}T10-00-00-{sid}.jsonl" if codex else f"{sid}.jsonl")
        with path.open("w", encoding="utf-8") as fh:
            if codex:
                meta = {"id": sid, "timestamp": f"{day}T10:00:00Z", "cwd": CWD, "originator": "codex-tui"}
                head = {"timestamp": meta["timestamp"], "type": "session_meta", "payload": meta}
                fh.write(json.dumps(head) + "\n")
            size, n = 0, 0
            while size < file_mb * 1e6 and written + size < target:
                lines, found = (_codex_lines if codex else _claude_lines)(sid, n, day)
                text = "\n".join(lines) + "\n"
                fh.write(text)
                size += len(text.encode("utf-8"))
                invokes += found
                n += 1
        written += path.stat().st_size
    return ws, sessions, invokes, files


def _append(sessions: Path) -> int:
    """Append ~1% more turns to every tenth file; returns the invokes added."""
    added = 0
    for k, path in enumerate(sorted(sessions.iterdir())):
        if k % 10:
            continue
        codex = path.name.startswith("rollout-")
        sid = path.stem[-36:] if codex else path.stem
        turns = sum(1 for _ in path.open("rb")) // 5
        with path.open("a", encoding="utf-8") as fh:
            for n in range(turns, turns + max(1, turns // 10)):
                lines, found = (_codex_lines if codex else _claude_lines)(sid, n, "2026-06-01")
                fh.write("\n".join(lines) + "\n")
                added += found
    return added


# ---- workers: each step runs in a fresh process so ru_maxrss is that step's peak ----

def _worker(step: str, ws: str, sessions: str) -> dict:
    start = time.perf_counter()
    out: dict = {}
    if step == "lines":
        for path in Path(sessions).iterdir():
            with path.open("rb") as fh:
                for _line in fh:
                    pass
    elif step == "json":
        for path in Path(sessions).iterdir():
            with path.open("rb") as fh:
                for line in fh:
                    json.loads(line)
    elif step == "metrics":
        from memcli.metrics import refresh_metrics
        from memcli.workspace import Workspace

        metrics, summary = refresh_metrics(Workspace.open(Path(ws)), [Path(sessions)])
        out = {"scanned": summary.scanned, "entries": summary.entries, "found": summary.invokes,
               "invokes": sum(m.count for m in metrics.records.values())}
    elif step == "reparse":  # refresh_metrics as it was: grown files parsed from their first line
        from memcli.metrics.api import build
        from memcli.metrics.scan import refresh
        from memcli.sessions import discover
        from memcli.workspace import Workspace

        workspace = Workspace.open(Path(ws))
        infos = discover(workspace, paths=[Path(sessions)], scan=False)
        state, summary = refresh(workspace.state_dir, infos, resume=False)
        metrics = build(workspace, state)
        out = {"scanned": summary.scanned, "entries": summary.entries, "found": summary.invokes,
               "invokes": sum(m.count for m in metrics.records.values())}
    elif step == "figures":
        from memcli.metrics import load_metrics
        from memcli.workspace import Workspace

        metrics = load_metrics(Workspace.open(Path(ws)))
        out = {"invokes": sum(m.count for m in metrics.records.values())}
    out["seconds"] = time.perf_counter() - start
    out["maxrss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return out


def _run(step: str, ws: Path, sessions: Path, env: dict) -> dict:
    proc = subprocess.run([sys.executable, __file__, "--worker", step, str(ws), str(sessions)],
                          capture_output=True, text=True, env=env, check=False)
    if proc.returncode:
        sys.exit(f"{step} failed:\n{proc.stderr}")
    return json.loads(proc.stdout)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mb", type=float, default=500.0, help="total transcript size to generate")
    parser.add_argument("--file-mb", type=float, default=8.0, help="size of one session file")
    parser.add_argument("--keep", type=Path, help="generate here and keep it (default: a temp dir)")
    parser.add_argument("--worker", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(_worker(*args.worker)))
        return 0
    root = args.keep or Path(tempfile.mkdtemp(prefix="metrics-bench-"))
    try:
        t0 = time.perf_counter()
        ws, sessions, expected, files = generate(root, args.mb, args.file_mb)
        size = sum(p.stat().st_size for p in sessions.iterdir())
        print(f"generated {size / 1e6:.0f} MB in {files} sessions ({expected} invokes) "
              f"in {time.perf_counter() - t0:.1f}s\n")
        env = dict(os.environ, MEMCLI_STATE_DIR=str(root / "state"))
        mb = size / 1e6
        rows = []
        lines = _run("lines", ws, sessions, env)
        rows.append(("floor: lines", lines, mb))
        rows.append(("floor: json", _run("json", ws, sessions, env), mb))
        full = _run("metrics", ws, sessions, env)
        rows.append(("metrics full", full, mb))
        rows.append(("metrics again", _run("metrics", ws, sessions, env), mb))
        shutil.copytree(root / "state", root / "state-reparse")
        added = _append(sessions)
        reparse = _run("reparse", ws, sessions, dict(env, MEMCLI_STATE_DIR=str(root / "state-reparse")))
        rows.append(("+1% reparse", reparse, None))
        grown = _run("metrics", ws, sessions, env)
        rows.append(("+1% resume", grown, None))
        figures = _run("figures", ws, sessions, env)
        rows.append(("figures", figures, None))
        print(f"{'step':<15}{'seconds':>9}{'MB/s':>9}{'x floor':>9}{'peak MB':>9}")
        for name, r, size_mb in rows:
            speed = f"{size_mb / r['seconds']:.0f}" if size_mb else "-"
            ratio = r["seconds"] / lines["seconds"]
            print(f"{name:<15}{r['seconds']:>9.2f}{speed:>9}{ratio:>9.1f}{r['maxrss_mb']:>9.0f}")
        ok = full["invokes"] == expected and grown["invokes"] == expected + added == figures["invokes"]
        ok = ok and reparse["invokes"] == grown["invokes"] and reparse["entries"] == grown["entries"]
        print(f"\n+1%: resume {reparse['seconds'] / grown['seconds']:.1f}x faster than re-parsing "
              f"({grown['entries']} new entries either way)")
        print(f"invokes: generated {expected} (+{added} appended), counted {full['invokes']} "
              f"(then {grown['invokes']}, re-parse {reparse['invokes']}, figures {figures['invokes']}): "
              f"{'OK' if ok else 'MISMATCH'}")
        return 0 if ok else 1
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
