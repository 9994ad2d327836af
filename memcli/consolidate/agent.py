"""The one model conversation of a run: integration phase, then GC phase, then lint repair turns.

The model has the memory tools, `dispose` (what became of each staging item) and `finish_phase`;
every tool call goes through the ToolSession (confined to the scratch copy, linted before written).
A phase ends only through finish_phase — integration only once every staging item has a
disposition; a text-only turn ends nothing and is answered with a nudge. The loop is bounded:
`max_iterations` model calls in all (running out fails the run and keeps the staging), and
`repair_turns` chances to fix what the final whole-workspace lint finds.

Two more bounds end a run early, each with its cause in one line: `no_progress_turns` model calls
in a row that get nowhere (memcli.consolidate.stall), and the run's budget (memory.budget,
memcli.llm.spend). Every call and tool call is shown through the run's progress Reporter
(memcli.progress).

The input comes from an InputPlan (memcli.consolidate.plan): when it has several batches of staging
items, the conversation starts over from the instructions with each next batch once the previous
one is fully disposed of (a short note says what the done batches came to), and the GC phase
starts after the last. Before every call the conversation is trimmed to the context budget
(memcli.consolidate.trim); a call the gateway still cannot fit (prompt + the answer's floor over
the window) fails the run with what filled the window.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from memcli.consolidate import prompts, trim
from memcli.consolidate.dispositions import DISPOSE, FINISH, Ledger
from memcli.consolidate.inputs import fence
from memcli.consolidate.plan import InputPlan
from memcli.consolidate.stall import NoProgress
from memcli.errors import MemcliError
from memcli.lint import Finding, lint
from memcli.llm import CallUsage, ContextExceeded
from memcli.llm.spend import Budget
from memcli.progress import Event, Reporter
from memcli.tools.phase import Phase
from memcli.tools.result import ToolResult, success
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


def nudge(content: str | None, phase: Phase, missing: list[Any], tools: Iterable[str] = ()) -> str:
    """The answer to a text-only turn: nothing happens through text, the phase ends only through
    finish_phase (small models narrate, or print a tool call as text instead of making it).

    `tools`: the names of the tools offered this turn; one of them, or a tool-call marker, in the
    text means a call was printed instead of made."""
    text = content or ""
    named = [name for name in (*tools, *_CALL_MARKERS) if name in text]
    if named:
        head = (f"Your reply holds what looks like a tool call written as text ({named[0]}); it was NOT run. "
                "Make tool calls through the tool-calling interface, not in the message text.")
    else:
        head = "You replied with text only; text changes nothing."
    step = "Continue with tool calls; when this phase is complete, call finish_phase."
    if phase is Phase.INTEGRATION and missing:
        ids = ", ".join(item.id for item in missing[:30])
        step += f" Staging items still without a disposition (call dispose for each): {ids}."
    return f"{head} {step}"


_CALL_MARKERS = ('"arguments"', "<tool_call>")  # how printed calls look when the name is not a tool


def printed_call(content: str | None, tools: Iterable[str] = ()) -> str | None:
    """The tool name (or call marker) a text reply holds: a call printed instead of made."""
    text = content or ""
    return next((name for name in (*tools, *_CALL_MARKERS) if name in text), None)


@dataclass
class Conversation:
    gateway: Any  # memcli.llm.Gateway
    tools: Any  # memcli.tools.ToolSession
    scratch: Workspace
    plan: InputPlan
    now: str
    max_iterations: int
    repair_turns: int
    ledger: Ledger | None = None  # the staging items' dispositions; None: an empty ledger
    no_progress_turns: int = 0  # model calls in a row that get nowhere before the run stops; 0: off
    budget: Budget = field(default_factory=Budget)  # what the run may spend (memory.budget)
    progress: Reporter = field(default_factory=lambda: Reporter(Event("consolidate")))
    # Filled while running, readable after a failure too (tokens spent on a failed run count).
    usage: Any = None
    iterations: int = 0
    repairs: int = 0
    tool_calls: int = 0
    nudges: int = 0
    batch: int = 0  # the staging batch being integrated (plan.batches)
    trimmed: int = 0  # messages trimmed to fit the window
    notes: list[str] = field(default_factory=list)
    messages: list[dict[str, Any]] = field(default_factory=list)
    nudged: list[dict[str, Any]] = field(default_factory=list)  # the nudges among `messages` (trimmable)
    _finished: bool = False

    @property
    def phase(self) -> Phase:
        """The tool session owns the phase (it decides what a call must say); the run reads it there."""
        return self.tools.phase

    def _finish(self, note: str = "") -> ToolResult:
        assert self.ledger is not None
        if self.phase is Phase.INTEGRATION and self.ledger.missing_shown():
            return self.ledger.unfinished_result()
        if note.strip():
            self.notes.append(note.strip())
        self._finished = True
        return success(f"the {self.phase} phase is finished")

    @property
    def limit(self) -> int:
        """Model calls allowed: max_iterations for each batch of staging items (one when all fit)."""
        return self.max_iterations * len(self.plan.batches)

    def _first(self, text: str) -> dict[str, Any]:
        return {"role": "user", "content": prompts.render("integration", now=self.now, input=text)}

    def _next_batch(self) -> None:
        """Start over from the instructions with the next batch: the done batches' text and turns
        give way to a note on what they came to (an 8k window cannot hold even stubs of 30 batches)."""
        assert self.ledger is not None
        self.batch += 1
        self.ledger.reveal([item.id for item in self.plan.batches[self.batch]])
        note = self.plan.progress(self.batch, self.ledger, self.tools.journal)
        self.messages = [self.messages[0], self._first(self.plan.first(self.batch, note))]
        self.nudged = []

    def _failed_turns(self) -> RunFailed:
        assert self.ledger is not None
        missing = self.ledger.missing()
        left = f"; {len(missing)} staging items still had no disposition" if missing else ""
        count = len(self.plan.batches)
        batches = f" x {count} batches of staging items" if count > 1 else ""
        return RunFailed(
            f"the model did not finish within {self.limit} model calls (consolidate.max_iterations"
            f"{batches}; it was in the {self.phase} phase{left}); staging is kept"
        )

    def _stalled(self, cause: str) -> RunFailed:
        return RunFailed(f"{cause} (the run stopped after {self.iterations} model calls, "
                         f"{self.no_progress_turns} in a row without progress: "
                         "consolidate.no_progress_turns); staging is kept")

    def _show(self, **fields: Any) -> None:
        assert self.ledger is not None
        done = len(self.ledger.done)
        self.progress.update(phase=self.phase, call=self.iterations, limit=self.limit, done=done,
                             total=len(self.ledger.items), usage=self.usage, **fields)

    def _end_check(self, baseline: set[tuple[str, str, str]]) -> list[dict[str, Any]]:
        """Whatever still blocks the result: new lint errors, items integrated into records that are gone."""
        assert self.ledger is not None
        problems = [f.to_dict() for f in new_errors(self.scratch, baseline)]
        problems += [{"code": "disposition-stale", "message": m + "; dispose of the item again"}
                     for m in self.ledger.stale()]
        return problems

    def _begin(self) -> set[tuple[str, str, str]]:
        """What both drivers do first (this loop, and a coding agent's: delegate.py): the run's own
        tools, the integration phase with the first batch shown; the lint errors already there."""
        assert self.ledger is not None
        self.tools.add_tool(DISPOSE, self.ledger.dispose)
        self.tools.add_tool(FINISH, self._finish)
        self.tools.phase = Phase.INTEGRATION
        self.ledger.reveal([item.id for item in self.plan.batches[0]], only=True)
        return baseline_errors(self.scratch)

    def run(self) -> None:
        self.usage = CallUsage()
        if self.ledger is None:
            self.ledger = Ledger([], self.scratch.root)
        baseline = self._begin()
        self.messages = [
            {"role": "system", "content": prompts.load("system")},
            self._first(self.plan.first()),
        ]
        stall = NoProgress(self.no_progress_turns, self.gateway.model)
        stage = (self.phase, self.batch, self.repairs)
        self._show()
        while True:
            if self.iterations >= self.limit:
                raise self._failed_turns()
            over = self.budget.reached(self.usage)
            if over:
                raise RunFailed(f"{over} (after {self.iterations} model calls); staging is kept")
            schemas = self.tools.schemas()
            trimmed = trim.fit(self.messages, schemas, self.plan.budget.conversation, self.nudged)
            self.trimmed += trimmed
            if trimmed or stage != (stage := (self.phase, self.batch, self.repairs)):
                stall.forget()  # old results trimmed away, or a new batch / phase / repair began
            try:
                turn = self.gateway.chat(self.messages, schemas, max_tokens=self.plan.budget.answer)
            except ContextExceeded as exc:
                raise RunFailed(trim.diagnose(self.messages, schemas, self.gateway.context_tokens,
                                              exc.floor, self.nudged)) from None
            self.usage += turn.usage
            self.iterations += 1
            self.messages.append(turn.message)
            self._show()
            if not turn.tool_calls:
                self.nudges += 1
                if turn.content and turn.content.strip():
                    self.notes.append(turn.content.strip())
                offered = [schema["function"]["name"] for schema in schemas]
                text = nudge(turn.content, self.phase, self.ledger.missing_shown(), offered)
                self.nudged.append({"role": "user", "content": text})
                self.messages.append(self.nudged[-1])
                cause = stall.text_turn(printed_call(turn.content, offered))
                if cause:
                    raise self._stalled(cause)
                continue
            self._finished = False
            made = []
            for call in turn.tool_calls:
                self.tool_calls += 1
                result = self.tools.call(call.name, call.arguments)
                made.append((call.name, call.arguments, result))
                self.messages.append({"role": "tool", "tool_call_id": call.id, "content": result.to_json()})
                self._show(tool=call.name)
            cause = stall.tool_turn(made)
            if cause:
                raise self._stalled(cause)
            if not self._finished:
                continue
            if self.phase is Phase.INTEGRATION and self.batch + 1 < len(self.plan.batches):
                self._next_batch()
                continue
            if self.phase is Phase.INTEGRATION:
                if not self.plan.full:  # the last batch's text gives way to the note, GC gets the room
                    note = self.plan.progress(len(self.plan.batches), self.ledger, self.tools.journal)
                    self.messages[1] = self._first(self.plan.done(note))
                self.tools.phase = Phase.GC
                self.messages.append({"role": "user", "content": self.plan.gc_message()})
                continue
            problems = self._end_check(baseline)
            if not problems:
                return
            if self.repairs >= self.repair_turns:
                shown = "; ".join(f"{p.get('path', 'dispositions')}: {p['code']}" for p in problems[:5])
                more = f" (+{len(problems) - 5} more)" if len(problems) > 5 else ""
                raise RunFailed(
                    f"the result still has {len(problems)} errors after {self.repairs} repair turns "
                    f"(consolidate.repair_turns): {shown}{more}"
                )
            self.repairs += 1
            self.tools.phase = Phase.REPAIR
            listing = json.dumps(problems, ensure_ascii=False, indent=1)
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
