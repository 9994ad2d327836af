"""The memcli.toml of a workspace whose whole pipeline (extract, consolidate) talks to the scripted
model server: no idle wait, no retry pauses, consolidation on any staging."""

from __future__ import annotations

from support.fake_llm import FAKE_MODEL


def pipeline_config(*, max_iterations: int = 10, coalesce_runs: int | None = None) -> str:
    coalesce = f"coalesce_runs = {coalesce_runs}\n" if coalesce_runs is not None else ""
    return f"""\
[memory]
extract_model = "{FAKE_MODEL}"
consolidation_model = "{FAKE_MODEL}"
context_tokens = 128000  # the fake model stands for a large-context one
retries = 1
backoff_s = 0
backoff_max_s = 0

[extract]
idle_minutes = 0

[consolidate]
trigger_files = 0
trigger_bytes = 0
max_iterations = {max_iterations}
{coalesce}"""
