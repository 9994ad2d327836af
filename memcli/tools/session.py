"""ToolSession: the memory tools bound to one workspace root, one run's Sources, and one journal."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memcli.atomicio import atomic_delete, atomic_write_bytes
from memcli.lint import Change, lint_change
from memcli.provenance import Trust, agent_directives
from memcli.records.parse import ParsedRecord, parse_record
from memcli.recordtext import decode, read_file
from memcli.tools import docs as project_docs
from memcli.tools import search as search_tools
from memcli.tools.edit import apply_edit
from memcli.tools.failure import ToolFailure, answers
from memcli.tools.journal import JournalEntry, JournalOp, Refusal
from memcli.tools.paths import FOLDERS, NoSuchRecord, PathRefused, confine, record_path
from memcli.tools.phase import Phase
from memcli.tools.policy import (
    Protection,
    check_delete_kind,
    check_new_knowledge,
    check_reason,
    check_trust,
    present_sources,
    said_by_user,
    source_keys,
    withhold,
)
from memcli.tools.read import list_folder, read_record
from memcli.tools.result import ToolResult, Violation, failure, refused, success
from memcli.tools.schemas import TOOL_NAMES, check_arguments, tool_schemas
from memcli.workspace import Kind, Workspace, locate

if TYPE_CHECKING:
    from memcli.lint.rules.base import Op


class ToolSession:
    def __init__(
        self,
        workspace: Workspace,
        *,
        allowed_sources: Iterable[Any] | None,
        knowledge_sources: Iterable[Any] | None,
        usage_rates: Mapping[str, float] | None = None,
        phase: Phase | str = Phase.INTEGRATION,
        trust: Trust | None = None,
        docs_root: Path | None = None,
    ) -> None:
        self.workspace = workspace
        self.phase = phase
        self._trust = trust  # who said the run's material (memcli.provenance); None: not checked
        self._allowed = source_keys(allowed_sources)
        if self._allowed is not None:
            # Sources already in memory may move between records (merge, split); see present_sources.
            self._allowed |= present_sources(workspace)
        self._candidates = source_keys(knowledge_sources)
        self._protection = Protection(
            dict(usage_rates) if usage_rates else None, workspace.config.metrics.protect_rate
        )
        self._journal: list[JournalEntry] = []
        self._created: set[str] = set()  # records this run created: still new to the rules (E16)
        self._vouched: set[str] = set()  # records with text aimed at agents, let through: the user's
        self._refusals: list[Refusal] = []
        self._handlers: dict[str, Callable[..., ToolResult]] = {
            "memory_read": self.read,
            "memory_write": self.write,
            "memory_edit": self.edit,
            "memory_delete": self.delete,
            "memory_search": self.search_memory,
            "knowledge_search": self.search_knowledge,
        }  # each answers a ToolFailure raised inside it with its result (memcli.tools.failure)
        self._added: dict[str, dict[str, Any]] = {}  # name → schema of tools the caller added
        if docs_root is not None:  # the real repository root: the tools' root may be a scratch copy
            self.add_tool(project_docs.SCHEMA, partial(project_docs.project_docs, Path(docs_root)))

    def add_tool(self, schema: dict[str, Any], handler: Callable[..., ToolResult]) -> None:
        """Offer one more tool (OpenAI format) through the same dispatch and argument checks, e.g.
        consolidation's `dispose` and `finish_phase`, which are about the run, not about memory.
        The handler may raise ToolFailure like the memory tools do."""
        name = schema["function"]["name"]
        self._added[name] = schema
        self._handlers[name] = answers(handler)

    @property
    def phase(self) -> Phase:
        """The run's phase: this session owns it (it decides what a call must say); the
        conversation driving the run sets it and reads it from here."""
        return self._phase

    @phase.setter
    def phase(self, value: Phase | str) -> None:
        if value not in set(Phase):
            raise ValueError(f"phase must be one of {', '.join(Phase)}, not {value!r}")
        self._phase = Phase(value)

    @property
    def journal(self) -> tuple[JournalEntry, ...]:
        return tuple(self._journal)

    @property
    def vouched(self) -> list[str]:
        """The records whose text aimed at agents the trust gate let through because every Source
        is the user's own words: the commit names them (memcli.git.authorship), so the Linter
        keeps trusting them later."""
        return sorted(self._vouched)

    @property
    def refusals(self) -> tuple[Refusal, ...]:
        """Every call refused so far (rules or a path that is no record), in order: a reviewer learns
        from the run record that something was stopped, whatever the model says about it."""
        return tuple(self._refusals)

    def schemas(self) -> list[dict[str, Any]]:
        return tool_schemas(self.phase) + [copy.deepcopy(s) for s in self._added.values()]

    # -- the model's entry point ------------------------------------------------------------

    def dispatch(self, name: str, arguments: str | dict[str, Any] | None) -> str:
        """Run one tool call; return the JSON text handed back to the model. Never raises on bad input."""
        return self.call(name, arguments).to_json()

    def call(self, name: str, arguments: str | dict[str, Any] | None) -> ToolResult:
        handler = self._handlers.get(name) if isinstance(name, str) else None
        if handler is None:
            return failure(
                "unknown-tool",
                f"there is no tool named {name!r}; use one of {', '.join((*TOOL_NAMES, *self._added))}",
            )
        if arguments is None or (isinstance(arguments, str) and not arguments.strip()):
            arguments = {}
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments)
            except json.JSONDecodeError as exc:
                return failure(
                    "arguments",
                    f"{name}: arguments are not valid JSON ({exc.msg} at character "
                    f"{exc.pos}); send one JSON object",
                )
        if not isinstance(arguments, dict):
            return failure(
                "arguments", f"{name}: arguments must be a JSON object, not {type(arguments).__name__}"
            )
        added = self._added.get(name)
        problems = check_arguments(name, arguments, added["function"]["parameters"] if added else None)
        if problems:
            return failure("arguments", f"{name}: " + "; ".join(problems))
        result = handler(**arguments)
        if result.error in ("refused", "path"):
            self._refusals.append(self._refusal(name, arguments, result))
        return result

    def _refusal(self, name: str, arguments: dict[str, Any], result: ToolResult) -> Refusal:
        flagged = self._trust.flagged if self._trust is not None else ()
        errors = [v for v in result.violations if v.is_error]
        code = ", ".join(dict.fromkeys(v.code for v in errors)) or str(result.error)
        path = result.data.get("path") or next((v.path for v in errors if v.path), arguments.get("path"))
        line = withhold(errors[0].message if errors else result.message, flagged)
        shown = withhold(path, flagged)[:120] if isinstance(path, str) else None
        return Refusal(name, code, shown, line if len(line) <= 240 else line[:239] + "…", self.phase)

    # -- tools ------------------------------------------------------------------------------

    @answers
    def read(self, path: str, start_line: int | None = None, end_line: int | None = None) -> ToolResult:
        try:
            folder = confine(self.workspace.root, path, write=False)
        except PathRefused:
            folder = None  # a slug, or a path the record check refuses with what is accepted
        if folder in FOLDERS and (self.workspace.root / folder).is_dir():
            return list_folder(self.workspace.root, folder)
        rel = self.record(path, write=False)
        return read_record(self.workspace.root, rel, self.workspace.config.lint, start_line, end_line)

    @answers
    def write(
        self, path: str, content: str, mode: str, reason: str, category: str | None = None
    ) -> ToolResult:
        if mode not in ("create", "replace"):
            raise ToolFailure("arguments", f"mode must be create or replace, not {mode!r}")
        rel = self.record(path, write=True)
        if mode == "replace" and not (self.workspace.root / rel).is_file():
            raise ToolFailure("not-found", f"{rel} does not exist; use mode=create to make a new record")
        data = _encode(content, "content")
        op: JournalOp = "create" if mode == "create" else "replace"
        return self._apply("memory_write", rel, data, op, reason, category)

    @answers
    def edit(
        self,
        path: str,
        old_string: str,
        new_string: str,
        reason: str,
        category: str | None = None,
        replace_all: bool = False,
    ) -> ToolResult:
        rel = self.record(path, write=True)
        edited = apply_edit(rel, self._current_text(rel), old_string, new_string, replace_all)
        return self._apply("memory_edit", rel, _encode(edited, "new_string"), "edit", reason, category)

    @answers
    def delete(self, path: str, reason: str, category: str | None = None) -> ToolResult:
        rel = self.record(path, write=True)
        if not (self.workspace.root / rel).is_file():
            raise ToolFailure("not-found", f"{rel} does not exist; nothing to delete")
        return self._apply("memory_delete", rel, None, "delete", reason, category)

    def search_memory(
        self,
        query: str,
        types: list[str] | None = None,
        status: str | None = None,
        include_replaced: bool = False,
        limit: int = 10,
    ) -> ToolResult:
        return search_tools.memory_search(self.workspace, query, types, status, include_replaced, limit)

    def search_knowledge(self, query: str, kind: str | None = None, limit: int = 10) -> ToolResult:
        return search_tools.knowledge_search(self.workspace, query, kind, limit)

    # -- the shared write path --------------------------------------------------------------

    def record(self, raw: Any, *, write: bool) -> str:
        """The path of the record a tool argument names (memcli.tools.paths.record_path); else
        ToolFailure with the result that says what is accepted."""
        try:
            return record_path(self.workspace.root, raw, write=write)
        except NoSuchRecord as exc:
            raise ToolFailure("not-found", str(exc)) from None
        except PathRefused as exc:
            raise ToolFailure(
                "path", str(exc), path=(raw if isinstance(raw, str) else repr(raw))[:120]
            ) from None

    def _current_text(self, rel: str) -> str:
        full = self.workspace.root / rel
        if not full.is_file():
            raise ToolFailure("not-found", f"{rel} does not exist; create it with memory_write mode=create")
        data, error = read_file(full)  # bounded; a FIFO put here since is refused, not waited on
        if data is not None:
            error = decode(data)[1]  # what the Linter's parse refuses: not UTF-8, NUL bytes, over 1 MiB
        if data is None or error is not None:
            raise ToolFailure("unreadable", f"{rel}: {error}; replace it with memory_write mode=replace")
        return data.decode("utf-8")

    def _lint_sources(self) -> frozenset[tuple[str, int, int]] | None:
        if self._allowed is None:
            return None
        return self._allowed | (
            self._candidates or frozenset()
        )  # a candidate Source is given to this run too

    def _apply(
        self, tool: str, rel: str, data: bytes | None, op: JournalOp, reason: Any, category: Any
    ) -> ToolResult:
        full = self.workspace.root / rel
        loc = locate(rel)  # located and parsed once here; the checks below get the parsed record
        before = read_file(full)[0] if full.is_file() else None
        new = None if data is None else parse_record(rel, data, loc.kind, loc.slug)
        old = None if before is None else parse_record(rel, before, loc.kind, loc.slug)
        size_before = None if before is None else len(before.decode("utf-8", errors="replace"))
        size_after = None if data is None else len(data.decode("utf-8"))
        violations = check_reason(reason, category, self.phase)
        if data is None:
            violations += check_delete_kind(rel) + self._protection.check_delete(rel)
        else:
            assert new is not None  # parsed above, as data is not None
            if before is not None:
                assert old is not None  # parsed above, as before is not None
                violations += self._protection.check_shrink(
                    rel, _body_chars(old, before), _body_chars(new, data)
                )
            if self._trust is not None:
                violations += check_trust(new, before, data, self._trust)
            if loc.kind is Kind.KNOWLEDGE and before is None:
                violations += check_new_knowledge(rel, new, self._candidates)
        lint_ops: dict[str, Op] = {"create": "create", "replace": "write", "edit": "edit", "delete": "delete"}
        lint_op = lint_ops[op]
        created = before is None or rel in self._created
        vouched = new is not None and said_by_user(new, self._trust)
        findings = lint_change(
            self.workspace,
            Change(rel, data, lint_op, allowed_sources=self._lint_sources(), created_in_run=created,
                   vouched=vouched),
            old=old, new=new,  # lint reads the record as parsed here
        )
        violations = [v if v.path else replace(v, path=rel) for v in violations]
        violations += [Violation.of(f) for f in findings if f.is_error]
        warnings = [Violation.of(f) for f in findings if not f.is_error]
        if violations:
            return refused(tool, violations, warnings)
        try:
            if data is None:
                atomic_delete(full)
            else:
                atomic_write_bytes(full, data)
        except OSError as exc:
            raise ToolFailure("io", f"could not write {rel}: {exc.strerror}; nothing was changed") from None
        if created and data is not None:
            self._created.add(rel)
        if data is None or not vouched:
            self._vouched.discard(rel)
        elif any(d.what != "invisible" for d in agent_directives(data.decode("utf-8", "replace"))):
            self._vouched.add(rel)
        self._journal.append(
            JournalEntry(op, rel, reason.strip(), category, size_before, size_after, self.phase)
        )
        done = {"create": "created", "replace": "replaced", "edit": "edited", "delete": "deleted"}[op]
        return success(f"{done} {rel} ({_size(size_before)}→{_size(size_after)} chars)", warnings, path=rel)


def _body_chars(rec: ParsedRecord, data: bytes) -> int:
    """What "shrinking" measures: the body (frontmatter is bookkeeping), or the text when unparsable."""
    return len(rec.body) if rec.ok else len(data.decode("utf-8", errors="replace"))


def _size(n: int | None) -> str:
    return "-" if n is None else str(n)


def _encode(text: str, what: str) -> bytes:
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        raise ToolFailure(
            "arguments", f"{what} holds invalid Unicode (an unpaired surrogate); send plain UTF-8 text"
        ) from None
