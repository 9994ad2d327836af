"""For each repetition: did the memory hold it before the later session, would that session have
received it (resident context, search), and does the memory hold it now — over a real git history."""

from __future__ import annotations

import pytest
from support.eval_workspace import History, decision, knowledge, request, summary

from memcli.eval import evaluate, read_sessions
from memcli.workspace import Workspace


@pytest.fixture
def evaluated(history: History):
    h = history
    h.commit("2026-01-01T00:00:00Z", {"memory/summary.md": summary("# Project\n\n- Reply in Japanese.")})
    h.session("s1", "2026-01-02", ["Fix the login bug in src/auth.py. Use pnpm instead of npm.", "thanks"])
    pnpm = h.commit("2026-01-03T00:00:00Z", {
        "memory/requests/use-pnpm.md": request("Install packages with pnpm, never npm.", ("s1", 0, 0)),
        "memory/decisions/no-friday-deploys.md": decision("Never deploy the billing service on Fridays."),
    })
    h.session("s2", "2026-01-05", ["Add a CSV export to the report page.", "npmじゃなくてpnpmを使って。"])
    h.session("s3", "2026-01-06", ["Write the tests with pytest.", "continue", "Don't deploy on Fridays."])
    h.session("s4", "2026-01-08", ["Add a health check endpoint.", "テストはpytestで書いて。"])
    tests = h.commit("2026-01-10T00:00:00Z", {
        "knowledge/test-framework.md": knowledge("Tests are written with pytest", "Not unittest."),
    })
    h.session("s5", "2026-01-12", ["Please write the tests with pytest.", "日本語で答えてください。"])
    h.session("s6", "2026-01-13", ["Prepare the billing service deploy.", "Don't deploy on Fridays."])
    h.session("s7", "2026-01-14", ["Please reply in Japanese.", "Keep functions under 50 lines."])
    h.session("s8", "2026-01-15", ["関数は50行以内にして。", "thanks"])
    ws = Workspace.open(h.root)
    report = evaluate(ws, read_sessions(ws, paths=[h.folder]))
    by_text = {}
    for rep in report.repetitions:
        for o in rep.occurrences:
            by_text[o.text] = rep
    return report, by_text, {"pnpm": pnpm, "tests": tests}


def _repeat(rep, session_id: str):
    return next(r for r in rep.repeats if r.session_id == session_id)


def test_held_before_but_not_received(evaluated) -> None:
    _, by_text, commits = evaluated
    rep = by_text["Use pnpm instead of npm."]
    assert [o.session_id for o in rep.occurrences] == ["s1", "s2"]
    assert [(o.start, o.end) for o in rep.occurrences] == [(0, 0), (2, 2)]
    s2 = _repeat(rep, "s2")
    assert s2.commit == commits["pnpm"]
    assert s2.held_before is True and s2.held_by == ("memory/requests/use-pnpm.md",)
    assert s2.reached is None  # a request is not resident, and "Add a CSV export" does not find it
    assert s2.query == "Add a CSV export to the report page."
    assert rep.covered_now and rep.covered_by == ("memory/requests/use-pnpm.md",)


def test_not_held_then_held_and_in_the_context(evaluated) -> None:
    _, by_text, commits = evaluated
    rep = by_text["Write the tests with pytest."]
    assert [o.session_id for o in rep.occurrences] == ["s3", "s4", "s5"]
    s4, s5 = _repeat(rep, "s4"), _repeat(rep, "s5")
    assert (s4.commit, s4.held_before, s4.reached) == (commits["pnpm"], False, None)
    # the knowledge record is in the resident context's index
    assert (s5.commit, s5.held_before, s5.reached) == (commits["tests"], True, "context")
    assert s5.held_by == ("knowledge/test-framework.md",)
    assert rep.covered_now


def test_received_through_search_for_the_task_words(evaluated) -> None:
    _, by_text, _ = evaluated
    rep = by_text["Don't deploy on Fridays."]
    assert [o.session_id for o in rep.occurrences] == ["s3", "s6"]
    s6 = _repeat(rep, "s6")
    assert s6.held_before and s6.held_by == ("memory/decisions/no-friday-deploys.md",)
    assert s6.query == "Prepare the billing service deploy."
    assert s6.reached == "search"


def test_received_through_the_summary_text(evaluated) -> None:
    _, by_text, _ = evaluated
    rep = by_text["Please reply in Japanese."]
    assert [o.session_id for o in rep.occurrences] == ["s5", "s7"]
    s7 = _repeat(rep, "s7")
    assert s7.held_before and s7.held_by == ("memory/summary.md",)
    assert s7.reached == "context"  # the summary is resident and says it


def test_never_held(evaluated) -> None:
    report, by_text, _ = evaluated
    assert len(report.repetitions) == 5
    rep = by_text["Keep functions under 50 lines."]
    assert [o.session_id for o in rep.occurrences] == ["s7", "s8"]
    assert _repeat(rep, "s8").held_before is False and _repeat(rep, "s8").reached is None
    assert not rep.covered_now and rep.covered_by == ()
    assert "thanks" not in by_text and "continue" not in by_text
