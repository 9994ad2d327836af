"""Consolidation through a coding agent (`agent/claude-code`, `agent/codex` ...): the agent runs its
own tool loop, and its only tools are this run's memory tools.

memcli keeps everything that decides the result, exactly as when it calls a model API itself
(memcli.consolidate.agent): the scratch copy, the ToolSession (confined, linted before every write,
E15's Sources, the journal), the ledger of dispositions, the phases, the final lint and the lock;
the apply and the one git commit come after, unchanged (memcli.consolidate.run). The agent reaches
the tools through `memcli mcp --relay SOCKET`, which it starts as its only MCP server (its own
shell, file and web tools are off by its own flags: memcli/agents/<agent>/headless.py) and which
hands each call back to this process over a private Unix socket (memcli.relay).

One agent run does as much as it can: `finish_phase`'s answer carries the next step (the next
batch of staging items, the GC phase, lint findings to repair) until it says that everything is
done. A run that ends before that is followed by another, which is told where the work stands; a
run that changed nothing (no disposition, no write) twice in a row ends the consolidation, as does
running out of runs (`limit`), with the cause in one line. Nothing is applied unless the whole
conversation finished, as with a model API.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import sys
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memcli import relay
from memcli.agents.parts import McpTools
from memcli.consolidate import prompts
from memcli.consolidate.agent import Conversation, RunFailed, nudge
from memcli.consolidate.dispositions import Ledger
from memcli.consolidate.inputs import fence
from memcli.llm import CallUsage, LLMError
from memcli.tools.phase import Phase
from memcli.tools.result import ToolResult
from memcli.tools.schemas import MUTATING, TOOL_NAMES, tool_schemas

IDLE_RUNS = 2  # runs in a row that change nothing end the consolidation
SERVER = "memcli"
_DONE = "Everything is done: the consolidation is complete. Stop now; reply only DONE."


def lent_schemas(session: Any) -> list[dict[str, Any]]:
    """The tools an agent gets for the whole run (an MCP server's tool list is fixed when it starts):
    the memory tools as the GC phase has them, `category` optional (the tools require it in the GC
    phase: memcli.tools.policy), and the session's others (`dispose`, `finish_phase`, `project_docs`)."""
    out = []
    added = [s for s in session.schemas() if s["function"]["name"] not in TOOL_NAMES]
    for tool in tool_schemas(Phase.GC) + added:
        fn = tool["function"]
        if fn["name"] in MUTATING:
            fn["parameters"]["required"] = [r for r in fn["parameters"]["required"] if r != "category"]
            fn["description"] += " In the GC phase `category` is required; in the others leave it out."
        out.append({"name": fn["name"], "description": fn["description"], "input_schema": fn["parameters"]})
    return out


class ToolLender:
    """The run's tools on a Unix socket (memcli.relay) for the `memcli mcp --relay` the agent starts:
    each connection is served by a thread of its own, every call under one lock (the tool session
    is not thread-safe; an agent may start the server more than once)."""

    def __init__(self, tools: list[dict[str, Any]], call: Any, instructions: str) -> None:
        self.tools, self.call, self.instructions = tools, call, instructions
        self.folder = Path(tempfile.mkdtemp(prefix="memcli-relay-"))  # 0700: only this user
        self.path = str(self.folder / "tools.sock")
        self._server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._server.bind(self.path)
        self._server.listen(4)
        self._lock = threading.Lock()
        self._closed = threading.Event()
        self._thread = threading.Thread(target=self._accept, name="memcli-relay", daemon=True)
        self._thread.start()

    def _accept(self) -> None:
        while not self._closed.is_set():
            try:
                conn, _ = self._server.accept()
            except OSError:
                return  # closed
            threading.Thread(target=self._serve, args=(conn,), name="memcli-relay-conn", daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        with conn, conn.makefile("rb") as reader:
            while True:
                try:
                    message = relay.receive(reader)
                except (relay.RelayError, OSError):
                    return
                if message is None:
                    return
                if message.get("op") == "tools":
                    answer: dict[str, Any] = {"tools": self.tools, "instructions": self.instructions}
                elif message.get("op") == "call":
                    with self._lock:
                        text, error = self.call(message.get("name"), message.get("arguments"))
                    answer = {"text": text, "error": error}
                else:
                    answer = {"text": f"unknown relay request {message.get('op')!r}", "error": True}
                try:
                    relay.send(conn, answer)
                except OSError:
                    return

    def close(self) -> None:
        self._closed.set()
        with contextlib.suppress(OSError):
            self._server.shutdown(socket.SHUT_RDWR)
        self._server.close()
        shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self) -> ToolLender:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def mcp_tools(lender: ToolLender) -> McpTools:
    """How the agent starts memcli's relay: this Python running this memcli (`-m memcli`, with
    PYTHONPATH when one is set: a checkout run from source), the socket, the tools' names."""
    env = {"PYTHONPATH": os.environ["PYTHONPATH"]} if os.environ.get("PYTHONPATH") else {}
    return McpTools(SERVER, sys.executable, ["-m", "memcli", "mcp", "--relay", lender.path],
                    [t["name"] for t in lender.tools], env)


@dataclass
class AgentConversation(Conversation):
    """Conversation's run with a coding agent as the model: the same fields (so a run's report and
    history read it unchanged), `iterations` counting the agent's runs."""

    timeout_s: float | None = None  # one agent run (consolidate.agent_timeout_s)
    idle: int = 0  # runs in a row that changed nothing
    denied: list[str] = field(default_factory=list)  # tools the agent was refused (not memcli's)
    _done: bool = False
    _failure: RunFailed | None = None
    _baseline: set[tuple[str, str, str]] = field(default_factory=set)

    @property
    def limit(self) -> int:
        """Agent runs allowed: one per batch, one per repair, and a few to go on where one stopped."""
        return len(self.plan.batches) + self.repair_turns + 1 + IDLE_RUNS

    def _failed_turns(self) -> RunFailed:
        assert self.ledger is not None
        left = len(self.ledger.missing())
        return RunFailed(f"{self.gateway.model} did not finish within {self.limit} runs (one per batch "
                         f"and repair, and {IDLE_RUNS + 1} more; it was in the {self.phase} phase; {left} "
                         "staging items still had no disposition); staging is kept")

    def run(self) -> None:
        self.usage = CallUsage()
        if self.ledger is None:
            self.ledger = Ledger([], self.scratch.root)
        self._baseline = self._begin()
        system = prompts.load("system") + "\n\n" + prompts.load("delegate")
        step = self._first(self.plan.first())["content"]
        with ToolLender(lent_schemas(self.tools), self._call, _INSTRUCTIONS) as lender:
            self._shown()
            while not self._done:
                if self.iterations >= self.limit:
                    raise self._failed_turns()
                over = self.budget.reached(self.usage)
                if over:
                    raise RunFailed(f"{over} (after {self.iterations} runs of the agent); staging is kept")
                before = self._progress()
                try:
                    reply = self.gateway.work(system, step, mcp_tools(lender), self.timeout_s)
                except LLMError as exc:
                    raise RunFailed(f"{exc}; staging is kept") from None
                finally:
                    self.iterations += 1
                self.usage += CallUsage(reply.prompt_tokens, reply.completion_tokens, reply.cost_usd, 1)
                self._shown()
                self.denied += [d for d in reply.denied if d not in self.denied]
                if reply.text.strip() and reply.text.strip() != "DONE":
                    self.notes.append(reply.text.strip())
                if self._failure is not None:
                    raise self._failure
                if self._done:
                    return
                self.idle = self.idle + 1 if self._progress() == before else 0
                if self.idle >= IDLE_RUNS:
                    raise RunFailed(self._idle_cause(reply.text))
                step = self._resume()

    # -- what the tools see ----------------------------------------------------------------------
    def _call(self, name: Any, arguments: Any) -> tuple[str, bool]:
        """One call from the agent: the tool session's answer, with the next step after a
        finish_phase that ended one."""
        if self._done:
            return _DONE, False
        self.tool_calls += 1
        self._finished = False
        result: ToolResult = self.tools.call(name, arguments)
        text = result.to_json()
        if self._finished:
            self._finished = False
            text += "\n\n" + self._advance()
        self._shown(tool=str(name))
        return text, not result.ok

    def _shown(self, **fields: Any) -> None:
        """The progress line: the agent's tool calls are the calls memcli sees (the tokens arrive
        with each run's end, as the agent reports them)."""
        assert self.ledger is not None
        self.progress.update(phase=self.phase, call=self.tool_calls, limit=None, done=len(self.ledger.done),
                             total=len(self.ledger.items), usage=self.usage, **fields)

    def _advance(self) -> str:
        """The step after the phase that just finished (the litellm route's order exactly)."""
        assert self.ledger is not None
        if self.phase is Phase.INTEGRATION and self.batch + 1 < len(self.plan.batches):
            self.batch += 1
            self.ledger.reveal([item.id for item in self.plan.batches[self.batch]])
            note = self.plan.progress(self.batch, self.ledger, self.tools.journal)
            return "Next: the next batch of staging items.\n\n" + self.plan.first(self.batch, note)
        if self.phase is Phase.INTEGRATION:
            self.tools.phase = Phase.GC
            return "Next: phase 2 (GC).\n\n" + self.plan.gc_message()
        problems = self._end_check(self._baseline)
        if not problems:
            self._done = True
            return _DONE
        if self.repairs >= self.repair_turns:
            shown = "; ".join(f"{p.get('path', 'dispositions')}: {p['code']}" for p in problems[:5])
            more = f" (+{len(problems) - 5} more)" if len(problems) > 5 else ""
            self._failure = RunFailed(f"the result still has {len(problems)} errors after {self.repairs} "
                                      f"repair turns (consolidate.repair_turns): {shown}{more}")
            self._done = True
            return "Stop now: the consolidation failed. Reply only DONE."
        self.repairs += 1
        self.tools.phase = Phase.REPAIR
        return "Next: repair.\n\n" + self._repair_text(problems)

    def _repair_text(self, problems: list[dict[str, Any]]) -> str:
        listing = json.dumps(problems, ensure_ascii=False, indent=1)
        return prompts.render("repair", turn=str(self.repairs), turns=str(self.repair_turns),
                              findings=fence("lint findings", listing, "json"))

    # -- between runs ----------------------------------------------------------------------------
    def _progress(self) -> tuple[int, int, Phase, int]:
        """What a run can change: dispositions, writes, the phase, repairs."""
        assert self.ledger is not None
        return len(self.ledger.done), len(self.tools.journal), self.phase, self.batch

    def _resume(self) -> str:
        """The prompt of the run after one that stopped early: where the work stands, and the step."""
        assert self.ledger is not None
        head = ("A previous run of this consolidation stopped before it was finished; its work so far "
                "is kept (the memory tools read the records as they are now). Go on from here.\n\n")
        if self.phase is Phase.INTEGRATION:
            note = self.plan.progress(self.batch, self.ledger, self.tools.journal)
            missing = nudge(None, self.phase, self.ledger.missing_shown())
            return head + missing + "\n\n" + self._first(self.plan.first(self.batch, note))["content"]
        if self.phase is Phase.GC:
            return head + self.plan.gc_message()
        return head + self._repair_text(self._end_check(self._baseline))

    def _idle_cause(self, last: str) -> str:
        said = " ".join(last.split())[:200]
        denied = f"; it was refused {', '.join(self.denied)}" if self.denied else ""
        refused = self.tools.refusals
        tools = ("it never called memcli's tools" if not self.tool_calls else
                 f"memcli refused {len(refused)} of its {self.tool_calls} tool calls, last: "
                 f"{refused[-1].code}" if refused else "its tool calls changed nothing")
        assert self.ledger is not None
        left = len(self.ledger.missing())
        return (f"{self.gateway.model} ended {IDLE_RUNS} runs in a row without progress ({tools}{denied}; "
                f"{left} staging items without a disposition, {self.phase} phase)"
                + (f"; it said: {said}" if said else "") + "; staging is kept")


_INSTRUCTIONS = ("The memory tools of one memcli consolidation run: read and write the records under "
                 "memory/ and knowledge/, give each staging item its disposition, finish each phase.")
