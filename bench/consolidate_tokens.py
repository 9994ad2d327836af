"""Tokens of the consolidation calls: the fixed part (system prompt, phase prompt, tool schemas) and
the first call's whole input, for an empty workspace and for 10 staging files over 200 records.

    python bench/consolidate_tokens.py

Counted with memcli's token counter (cl100k_base when tiktoken's table is local, else the
estimate). The baseline column is the budget the fixed part must stay within (3 000 tokens).
No model is called: the messages are built exactly as `memcli consolidate` builds them.

The second table lays the 10 staging / 200 records input out within a context window (8k, which is
also memcli's default for a model litellm does not know, 32k, 128k), as a run does, next to the old
layout that pasted every record in full: the first call's tokens as the gateway's check counts them
(its estimate, which errs high) and in cl100k, and whether it fits the window.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import io
import json
import tempfile
from pathlib import Path

from memcli.commands import init
from memcli.consolidate import budget, inputs, plan, prompts
from memcli.consolidate.dispositions import DISPOSE, FINISH
from memcli.staging import StagingFile
from memcli.tokens import get_counter
from memcli.tools import tool_schemas
from memcli.tools.docs import SCHEMA as PROJECT_DOCS
from memcli.workspace import Workspace

FIXED_BUDGET = 3_000
TS = "2026-05-20T10:00:00+00:00"


def _record(i: int, kind: str) -> str:
    head = f"---\ncreated_at: {TS}\nupdated_at: {TS}\n" + ("status: resolved\n" if kind == "decision" else "")
    body = (f"Decision {i}: keep the cache layer for module {i} behind one interface, because the "
            f"storage backend for module {i} may change; revisit when traffic doubles.\n")
    return head + f"sources:\n  - session_id: sess-{i}\n    range: [0, {i + 3}]\n---\n{body}"


def _workspace(root: Path, records: int, staging: int) -> Workspace:
    with contextlib.redirect_stdout(io.StringIO()):
        init.run(root)
    for i in range(records):
        kind = "decision" if i % 4 else "request"
        folder = "memory/decisions" if kind == "decision" else "memory/requests"
        (root / folder / f"record-{i:03d}.md").write_text(_record(i, kind), encoding="utf-8")
    for s in range(staging):
        items = {
            "decisions": [{"title": f"Retry policy {s}.{k}", "decision": f"Retry job {s}.{k} three times",
                           "rationale": "transient network errors"} for k in range(3)],
            "discussions": [{"title": f"Queue choice {s}", "summary": "Redis or SQLite queue; undecided"}],
            "attempts": [{"title": f"Flaky test {s}", "outcome": "fixed by pinning the clock"}],
            "requests": [{"title": f"Style {s}", "request": "Keep functions under 50 lines"}],
        }
        data = StagingFile(id=f"st-{s:02d}", agent="claude-code",
                           source={"session_id": f"run-{s}", "range": [0, 40]}, model="m",
                           prompt_version="p", created_at=dt.datetime(2026, 5, 20, tzinfo=dt.UTC),
                           items=items)
        (root / "memory/_staging" / f"st-{s:02d}.json").write_text(data.model_dump_json(), encoding="utf-8")
    return Workspace.open(root)


def _tokens(text: str) -> int:
    return get_counter().count(text)


def measure(ws: Workspace) -> dict[str, int]:
    staging = inputs.load_staging(ws)
    body = inputs.build_input(ws, staging, None, None)
    now = "2026-05-20T10:00:00+00:00"
    schemas = json.dumps(tool_schemas("integration") + [PROJECT_DOCS, DISPOSE, FINISH], ensure_ascii=False)
    gc_schemas = json.dumps(tool_schemas("gc") + [PROJECT_DOCS, DISPOSE, FINISH], ensure_ascii=False)
    fixed = {
        "system": _tokens(prompts.load("system")),
        "integration prompt": _tokens(prompts.render("integration", now=now, input="")),
        "tool schemas": _tokens(schemas),
    }
    return {
        **fixed,
        "fixed part (1st call)": sum(fixed.values()),
        "input (staging + records)": _tokens(body),
        "1st call total": sum(fixed.values()) + _tokens(body),
        "GC prompt (added)": _tokens(prompts.load("gc")),
        "GC tool schemas": _tokens(gc_schemas),
    }


def _first_call(body: str, schemas: list[dict]) -> tuple[int, int]:
    """The first call's tokens: (the gateway's estimate, cl100k or the estimate)."""
    from memcli.llm import estimate_prompt

    messages = [{"role": "system", "content": prompts.load("system")},
                {"role": "user", "content": prompts.render("integration", now=TS, input=body)}]
    real = _tokens(messages[0]["content"]) + _tokens(messages[1]["content"]) + _tokens(json.dumps(schemas))
    return estimate_prompt(messages, {"tools": schemas}), real


def windows(ws: Workspace) -> None:
    from memcli.consolidate.run import _material

    ws.__dict__["state_dir"] = ws.root / ".memcli"  # as a run's scratch copy: its own search index
    staging, material = inputs.load_staging(ws), _material(ws)
    schemas = tool_schemas("integration") + [PROJECT_DOCS, DISPOSE, FINISH]
    old = _first_call(inputs.build_input(ws, staging, material.candidates, material.gc_report), schemas)
    print("\n10 staging files (60 items) over 200 records, with the run's knowledge-candidate and gc "
          "reports; 1st call = system + integration message + tool schemas")
    print(f"{'window':>8} {'layout':42} {'batches':>7} {'gateway estimate':>17} {'cl100k':>7} {'fits':>5}")
    for window in (8192, 32768, 128000):
        print(f"{window:>8} {'old: every record pasted in full':42} {1:>7} {old[0]:>17} {old[1]:>7} "
              f"{'yes' if old[0] < window else 'NO':>5}")
        window_budget = budget.measure(window, schemas)
        laid = plan.plan(ws, staging, material.candidates, material.gc_report, window_budget)
        layout = ("everything in full" if laid.full else
                  ("catalogue" if laid.catalogued else "count") + " + related records per batch")
        new = _first_call(laid.first(), schemas)
        print(f"{window:>8} {'new: ' + layout:42} {len(laid.batches):>7} {new[0]:>17} {new[1]:>7} "
              f"{'yes' if new[0] < window else 'NO':>5}")


def main() -> None:
    print(f"counter: {get_counter().name}; fixed-part budget {FIXED_BUDGET} tokens")
    with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b:
        empty = measure(_workspace(Path(a), 0, 0))
        big = measure(_workspace(Path(b), 200, 10))
    print(f"{'tokens':28} {'empty workspace':>16} {'10 staging/200 rec':>20} {'budget':>8}")
    for key in empty:
        budget = str(FIXED_BUDGET) if key.startswith("fixed part") else ""
        print(f"{key:28} {empty[key]:>16} {big[key]:>20} {budget:>8}")
    print(f"fixed part / budget: {empty['fixed part (1st call)'] / FIXED_BUDGET:.2f}")
    with tempfile.TemporaryDirectory() as c:
        windows(_workspace(Path(c), 200, 10))


if __name__ == "__main__":
    main()
