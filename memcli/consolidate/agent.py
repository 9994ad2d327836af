"""The one model conversation of a run: integration phase, then GC phase, then lint repair turns.

The model has the memory tools and nothing else; every tool call goes through the ToolSession
(confined to the scratch copy, linted before written). The loop is bounded: `max_iterations`
model calls in all, and `repair_turns` chances to fix what the final whole-workspace lint finds.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from memcli.consolidate import prompts
from memcli.consolidate.inputs import fence
from memcli.errors import MemcliError
from memcli.lint import Finding, lint
from memcli.workspace import Workspace


class RunFailed(MemcliError):
    """The model did not produce a clean result; nothing was applied."""


def _key(f: Finding) -> tuple[str, str, str]:
    return (f.path, f.code, f.message)


def new_errors(ws: Workspace, baseline: set[tuple[str, str, str]]) -> list[Finding]:
    """Lint errors of the whole scratch workspace that were not there before the run."""
    return [f for f in lint(ws) if f.is_error and _key(f) not in baseline]


def baseline_errors(ws: Workspace) -> set[tuple[str, str, str]]:
    # Errors a human left in the workspace are not the model's to fix; only new ones block the run.
    return {_key(f) for f in lint(ws) if f.is_error}


@dataclass
class Conversation:
    gateway: Any  # memcli.llm.Gateway
    tools: Any  # memcli.tools.ToolSession
    scratch: Workspace
    input_text: str
    now: str
    max_iterations: int
    repair_turns: int
    # Filled while running, readable after a failure too (tokens spent on a failed run count).
    usage: Any = None
    iterations: int = 0
    repairs: int = 0
    tool_calls: int = 0
    notes: list[str] = field(default_factory=list)
    messages: list[dict[str, Any]] = field(default_factory=list)

    def run(self) -> None:
        from memcli.llm import CallUsage

        self.usage = CallUsage()
        baseline = baseline_errors(self.scratch)
        self.tools.phase = "integration"
        phase = "integration"
        self.messages = [
            {"role": "system", "content": prompts.load("system")},
            {"role": "user", "content": prompts.render("integration", now=self.now, input=self.input_text)},
        ]
        while True:
            if self.iterations >= self.max_iterations:
                raise RunFailed(
                    f"the model did not finish within {self.max_iterations} model calls "
                    f"(consolidate.max_iterations; it was in the {phase} phase)"
                )
            turn = self.gateway.chat(self.messages, self.tools.schemas())
            self.usage += turn.usage
            self.iterations += 1
            self.messages.append(turn.message)
            if turn.tool_calls:
                for call in turn.tool_calls:
                    self.tool_calls += 1
                    result = self.tools.dispatch(call.name, call.arguments)
                    self.messages.append({"role": "tool", "tool_call_id": call.id, "content": result})
                continue
            if turn.content:
                self.notes.append(turn.content.strip())
            if phase == "integration":
                phase = self.tools.phase = "gc"
                self.messages.append({"role": "user", "content": prompts.load("gc")})
                continue
            errors = new_errors(self.scratch, baseline)
            if not errors:
                return
            if self.repairs >= self.repair_turns:
                shown = "; ".join(f"{f.path}: {f.code}" for f in errors[:5])
                more = f" (+{len(errors) - 5} more)" if len(errors) > 5 else ""
                raise RunFailed(
                    f"the result still has {len(errors)} lint errors after {self.repairs} repair turns "
                    f"(consolidate.repair_turns): {shown}{more}"
                )
            self.repairs += 1
            phase = "repair"
            self.tools.phase = "integration"  # fixing a record is not a GC decision: no category needed
            listing = json.dumps([f.to_dict() for f in errors], ensure_ascii=False, indent=1)
            self.messages.append(
                {
                    "role": "user",
                    "content": prompts.render(
                        "repair",
                        turn=str(self.repairs),
                        turns=str(self.repair_turns),
                        findings=fence("lint findings", listing, "json"),
                    ),
                }
            )
