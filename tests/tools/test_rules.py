"""Rules enforced by the tools in code: reason/category, no decision deletes, Sources only from the
run, new knowledge only from the candidate report, usage protection, and the journal."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from tools.helpers import CANDIDATE_SRC, E2E_SRC, RUN_SRC, WAL_SRC, record, tree

from memcli.config import Config, MetricsConfig
from memcli.records.models import Source
from memcli.tools import ToolSession
from memcli.workspace import Workspace

REQ = "memory/requests/keep-e2e-opt-in.md"
KNOW = "knowledge/sqlite-backup.md"


# -- reason and category ---------------------------------------------------------------------

MUTATIONS: list[tuple[str, dict[str, Any]]] = [
    ("memory_write", {"path": "memory/requests/new-one.md", "content": record("request"), "mode": "create"}),
    ("memory_edit", {"path": REQ, "old_string": "takes minutes", "new_string": "is slow"}),
    ("memory_delete", {"path": REQ}),
]


@pytest.mark.parametrize(("name", "args"), MUTATIONS, ids=["write", "edit", "delete"])
@pytest.mark.parametrize(
    ("phase", "extra", "codes"),
    [
        ("integration", {"reason": "why"}, []),
        ("integration", {"reason": "  "}, ["reason-required"]),
        ("integration", {"reason": "why", "category": "noisy"}, []),
        ("gc", {"reason": "why", "category": "unused"}, []),
        ("gc", {"reason": "why"}, ["category-required"]),
        ("gc", {"reason": "", "category": "noisy"}, ["reason-required"]),
        ("repair", {"reason": "fix the lint error"}, []),  # fixing a record is no GC decision
        ("repair", {"reason": ""}, ["reason-required"]),
    ],
    ids=["ok", "blank-reason", "category-optional", "gc-ok", "gc-no-category", "gc-no-reason", "repair-ok",
         "repair-no-reason"],
)
def test_reason_and_category(
    make_session: Callable[..., ToolSession], name: str, args: dict, phase: str, extra: dict, codes: list[str]
) -> None:
    session = make_session(phase=phase)
    before = tree(session.workspace.root)
    out = session.call(name, {**args, **extra})
    if not codes:
        assert out.ok, out
        [entry] = session.journal
        assert (entry.reason, entry.category, entry.phase) == (extra["reason"], extra.get("category"), phase)
    else:
        assert out.error == "refused", out
        assert [v.code for v in out.violations] == codes
        assert tree(session.workspace.root) == before


def test_invalid_category_through_python_api(session: ToolSession) -> None:
    out = session.delete(REQ, "r", category="stale")  # type: ignore[arg-type]
    assert [v.code for v in out.violations] == ["invalid-category"]
    assert out.violations[0].field == "category"


def test_phase_must_be_known(session: ToolSession) -> None:
    with pytest.raises(ValueError):
        session.phase = "cleanup"


# -- never delete a decision or the summary --------------------------------------------------


@pytest.mark.parametrize(
    "path", ["memory/decisions/use-sqlite-wal.md", "memory/decisions/sync-job-runner.md", "memory/summary.md"]
)
def test_decisions_and_summary_are_never_deleted(make_session: Callable[..., ToolSession], path: str) -> None:
    session = make_session(phase="gc")
    before = tree(session.workspace.root)
    out = session.delete(path, "obsolete", "outdated")
    assert out.error == "refused"
    assert out.violations[0].code in ("decision-delete", "summary-delete")
    assert "replaced" in out.violations[0].message or "rewrite" in out.violations[0].message
    assert tree(session.workspace.root) == before


def test_deleting_a_referenced_record_is_refused(session: ToolSession) -> None:
    out = session.delete(KNOW, "r")  # memory/workflow/release.md requires sqlite-backup
    assert out.error == "refused"
    assert [v.code for v in out.violations] == ["dangling-reference"]
    assert (session.workspace.root / KNOW).exists()


def test_request_delete_is_allowed_and_journaled(session: ToolSession) -> None:
    size = len((session.workspace.root / REQ).read_text(encoding="utf-8"))
    out = session.delete(REQ, "done")
    assert out.ok, out
    assert not (session.workspace.root / REQ).exists()
    [entry] = session.journal
    assert (entry.op, entry.size_before, entry.size_after) == ("delete", size, None)


# -- Sources only from the run ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("sources", "ok"),
    [
        ([RUN_SRC], True),
        ([CANDIDATE_SRC], True),  # the candidate report's Sources were given to this run too
        ([("invented-session", 0, 3)], False),
        ([("run-session-1", 0, 10)], False),  # a widened range is invented too
        ([RUN_SRC, ("invented-session", 1, 2)], False),
    ],
    ids=["given", "candidate", "invented", "widened", "one-of-two-invented"],
)
def test_sources_must_be_given(session: ToolSession, sources: list, ok: bool) -> None:
    out = session.write("memory/decisions/new-choice.md", record("decision", sources=sources), "create", "r")
    if ok:
        assert out.ok, out
    else:
        assert [v.code for v in out.violations] == ["source-not-provided"]
        assert not (session.workspace.root / "memory/decisions/new-choice.md").exists()


def test_sources_already_on_the_record_may_stay(session: ToolSession) -> None:
    out = session.write(REQ, record("request", "Keep e2e opt-in.\n", [E2E_SRC]), "replace", "reword")
    assert out.ok, out


@pytest.mark.parametrize(
    ("path", "kind"),
    [("memory/decisions/merged-choice.md", "decision"), ("memory/requests/split-off.md", "request")],
)
def test_sources_on_any_record_may_move(session: ToolSession, path: str, kind: str) -> None:
    # Merge / split: WAL_SRC sits on memory/decisions/use-sqlite-wal.md (and knowledge/wal-mode.md),
    # E2E_SRC on memory/requests/keep-e2e-opt-in.md; carrying them to another record keeps provenance.
    out = session.write(path, record(kind, sources=[WAL_SRC, E2E_SRC, RUN_SRC]), "create", "merge")
    assert out.ok, out


def test_moved_sources_are_those_present_at_session_start(session: ToolSession) -> None:
    created = record("request", sources=[RUN_SRC])
    assert session.write("memory/requests/first.md", created, "create", "r").ok
    widened = record("request", sources=[(WAL_SRC[0], WAL_SRC[1], WAL_SRC[2] + 1)])
    out = session.write("memory/decisions/other.md", record("decision", sources=[WAL_SRC]), "create", "r")
    assert out.ok, out
    out = session.write("memory/requests/second.md", widened, "create", "r")
    assert [v.code for v in out.violations] == ["source-not-provided"]  # a widened range is invented


def test_sources_as_pydantic_models_and_dicts(ws: Workspace) -> None:
    session = ToolSession(
        ws,
        allowed_sources=[Source(session_id="a", range=(0, 1)), {"session_id": "b", "range": [2, 3]}],
        knowledge_sources=[],
    )
    out = session.write(
        "memory/requests/r1.md", record("request", sources=[("a", 0, 1), ("b", 2, 3)]), "create", "r"
    )
    assert out.ok, out


def _summary(rng: str) -> str:
    return f"---\nupdated_at: 2026-05-20T10:00:00+00:00\n{rng}---\n# tasklist\n\nRewritten.\n"


@pytest.mark.parametrize(
    ("field", "ok"),
    [
        ("last_rewritten_from_range:\n  session_id: {s}\n  range: [{a}, {b}]\n", True),
        ("last_rewritten_from_range:\n  - session_id: {s}\n    range: [{a}, {b}]\n", True),
        ("last_rewritten_from_range:\n  session_id: invented-session\n  range: [0, 3]\n", False),
        ("last_rewritten_from_range:\n  - session_id: {s}\n    range: [{a}, {b}]\n"
         "  - session_id: invented-session\n    range: [0, 3]\n", False),
    ],
    ids=["one-given", "list-given", "one-invented", "list-one-invented"],
)
def test_summary_rewritten_from_range_is_a_source_too(session: ToolSession, field: str, ok: bool) -> None:
    """Every field typed as a Source is checked, not only `sources` / `last_sources`."""
    s, a, b = RUN_SRC
    out = session.write("memory/summary.md", _summary(field.format(s=s, a=a, b=b)), "replace", "rewrite")
    if ok:
        assert out.ok, out
    else:
        assert [(v.code, v.field) for v in out.violations] == [
            ("source-not-provided", "last_rewritten_from_range")]
        assert "invented-session:0-3" in out.violations[0].message
        assert "Rewritten." not in (session.workspace.root / "memory/summary.md").read_text()


def test_source_rule_is_off_when_not_given(ws: Workspace) -> None:
    session = ToolSession(ws, allowed_sources=None, knowledge_sources=None)
    out = session.write(
        "memory/requests/r1.md", record("request", sources=[("anything", 0, 1)]), "create", "r"
    )
    assert out.ok, out


# -- new knowledge only from the candidate report --------------------------------------------


@pytest.mark.parametrize(
    ("report", "cites", "ok"),
    [
        ([], [RUN_SRC], False),
        ([CANDIDATE_SRC], [CANDIDATE_SRC], True),
        ([CANDIDATE_SRC], [RUN_SRC, CANDIDATE_SRC], True),
        ([CANDIDATE_SRC], [RUN_SRC], False),
        (None, [RUN_SRC], True),
    ],
    ids=["empty-report", "cites-candidate", "cites-candidate-among-others", "cites-other", "rule-off"],
)
def test_new_knowledge_needs_a_candidate_source(
    make_session: Callable[..., ToolSession], report: list | None, cites: list, ok: bool
) -> None:
    session = make_session(knowledge_sources=report)
    path = "knowledge/vacuum-schedule.md"
    out = session.write(path, record("knowledge", "Run VACUUM weekly.\n", cites), "create", "from candidate")
    if ok:
        assert out.ok, out
        assert (session.workspace.root / path).exists()
    else:
        assert [v.code for v in out.violations] == ["knowledge-not-candidate"]
        assert out.violations[0].field == "last_sources"
        assert "existing knowledge" in out.violations[0].message
        assert not (session.workspace.root / path).exists()


def test_existing_knowledge_can_be_updated_with_an_empty_report(
    make_session: Callable[..., ToolSession],
) -> None:
    session = make_session(knowledge_sources=[])
    out = session.edit(KNOW, "The copy is consistent", "The backup copy is consistent", "clarify")
    assert out.ok, out
    text = record("knowledge", "Use the online backup API.\n", [WAL_SRC, RUN_SRC]).replace(
        "A fact about the project.", "How to back up SQLite."
    )
    assert session.write("knowledge/wal-mode.md", text, "replace", "merge").ok


# -- usage protection ------------------------------------------------------------------------


def _ws_with_rate(ws: Workspace, rate: float) -> Workspace:
    return Workspace(ws.root, Config(metrics=MetricsConfig(protect_rate=rate)))


@pytest.mark.parametrize(
    ("rates", "threshold", "protected"),
    [
        ({"keep-e2e-opt-in": 1.0}, 1.0, True),  # at the threshold counts
        ({REQ: 7.5}, 1.0, True),  # keyed by path
        ({"keep-e2e-opt-in": 0.99}, 1.0, False),
        ({"other-slug": 50.0}, 1.0, False),
        (None, 1.0, False),  # no metrics yet: not applied
        ({}, 1.0, False),
        ({"keep-e2e-opt-in": 3.0}, 5.0, False),  # config raises the threshold
    ],
    ids=[
        "at-threshold",
        "by-path",
        "below",
        "other-record",
        "no-metrics",
        "empty-metrics",
        "config-threshold",
    ],
)
def test_protected_records_are_not_deleted(
    ws: Workspace, rates: dict | None, threshold: float, protected: bool
) -> None:
    session = ToolSession(
        _ws_with_rate(ws, threshold),
        allowed_sources=[RUN_SRC],
        knowledge_sources=[],
        usage_rates=rates,
        phase="gc",
    )
    out = session.delete(REQ, "never used", "unused")
    if protected:
        assert [v.code for v in out.violations] == ["protected-record"]
        assert (ws.root / REQ).exists()
    else:
        assert out.ok, out


@pytest.mark.parametrize(("keep", "ok"), [(0.5, True), (0.49, False), (0.1, False)])
def test_protected_records_shrink_by_at_most_half(ws: Workspace, keep: float, ok: bool) -> None:
    session = ToolSession(
        ws, allowed_sources=[RUN_SRC], knowledge_sources=[], usage_rates={"keep-e2e-opt-in": 2.0}
    )
    old = (ws.root / REQ).read_text(encoding="utf-8")
    head, body = old.rsplit("---\n", 1)
    kept = int(len(body) * keep + 0.999)  # body characters kept
    new = head + "---\n" + body[:kept]
    assert (kept * 2 >= len(body)) is ok  # the case is what it says
    out = session.write(REQ, new, "replace", "trim", "noisy")
    if ok:
        assert out.ok, out
    else:
        assert [v.code for v in out.violations] == ["protected-record"]
        assert "at most half" in out.violations[0].message
        assert (ws.root / REQ).read_text(encoding="utf-8") == old


def test_unprotected_records_may_shrink_freely(session: ToolSession) -> None:
    old = (session.workspace.root / REQ).read_text(encoding="utf-8")
    new = old.split("Keep the end-to-end")[0] + "E2E opt-in.\n"
    assert session.write(REQ, new, "replace", "trim").ok


# -- the journal -----------------------------------------------------------------------------


def test_journal_keeps_every_successful_operation_in_order(make_session: Callable[..., ToolSession]) -> None:
    session = make_session()
    root = session.workspace.root
    assert session.write(
        "memory/requests/a-new.md", record("request", "追加。\n"), "create", "from staging"
    ).ok
    assert not session.delete("memory/decisions/api-versioning.md", "refused one").ok  # not journaled
    session.phase = "gc"
    assert session.edit(REQ, "takes minutes", "is slow", "shorter", "noisy").ok
    assert session.delete("memory/requests/a-new.md", "duplicate", "superseded").ok
    ops = [(e.op, e.path, e.category, e.phase) for e in session.journal]
    assert ops == [
        ("create", "memory/requests/a-new.md", None, "integration"),
        ("edit", REQ, "noisy", "gc"),
        ("delete", "memory/requests/a-new.md", "superseded", "gc"),
    ]
    edit = session.journal[1]
    assert edit.size_before - edit.size_after == len("takes minutes") - len("is slow")
    assert edit.size_after == len((root / REQ).read_text(encoding="utf-8"))
    assert edit.line() == f"edit {REQ} [noisy] {edit.size_before}→{edit.size_after} chars: shorter"
    assert session.journal[0].line().startswith("create memory/requests/a-new.md -→")
    assert session.journal[2].line().endswith("→- chars: duplicate")
