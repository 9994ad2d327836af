"""Does a memory hold an instruction: by its text, or by Sources that point at where it was said."""

from __future__ import annotations

import pytest
from support.eval_workspace import decision, knowledge, request, summary

from memcli.eval.coverage import MemoryAt, Passages, view
from memcli.eval.detect import Weights
from memcli.eval.features import features

WORDING = "Use pnpm instead of npm."
SAID = [("s1", 4, 4)]  # where the user said it: session s1, line 4
OTHERS = ["Add a test for parse_date.", "Always write docs in English.", "Keep functions short.", WORDING]


def _holds(rel: str, text: str, wording: str = WORDING, said=SAID) -> bool:
    weights = Weights([features(t) for t in OTHERS])
    record = view(rel, text.encode())
    assert record is not None
    memory = MemoryAt([record], Passages(weights))
    return bool(memory.covering([(wording, features(wording))], said))


@pytest.mark.parametrize(("rel", "text"), [
    ("memory/requests/pnpm.md", request("Install packages with pnpm, never npm.")),
    ("memory/requests/pnpm-ja.md", request("パッケージはnpmではなくpnpmで入れる。")),
    ("knowledge/package-manager.md", knowledge("Use pnpm, not npm", "Why: the lockfile is pnpm's.")),
    ("memory/summary.md", summary("# Project\n\n- Stack: Next.js\n- Use pnpm instead of npm, always.")),
    ("memory/decisions/pnpm.md", decision("Long story.\n\nWe settled on pnpm.\n\n- never npm again")),
])
def test_its_text_covers_the_wording(rel: str, text: str) -> None:
    assert _holds(rel, text)


@pytest.mark.parametrize(("rel", "text"), [
    ("memory/requests/yarn.md", request("Use yarn for the monorepo tooling.")),
    ("memory/requests/unrelated.md", request("Write the docs in English.")),
    ("memory/decisions/pnpm-old.md",
     decision("Use pnpm instead of npm.", status="replaced", replaced_by="x")),
])
def test_other_records_do_not(rel: str, text: str) -> None:
    assert not _holds(rel, text)


@pytest.mark.parametrize(("sources", "body", "held"), [
    ([("s1", 4, 4)], "Package manager choice.", True),  # a narrow Source at the very prompt
    ([("s1", 3, 5)], "Package manager choice.", True),
    ([("s1", 0, 120)], "Deploy on Fridays is fine.", False),  # a wide chunk about something else
    ([("s1", 0, 120)], "The package manager is pnpm.", True),  # a wide chunk that is about it
    ([("s2", 4, 4)], "Package manager choice.", False),  # another session
    ([("s1", 6, 8)], "Package manager choice.", False),  # the same session, other lines
])
def test_sources_that_point_at_where_it_was_said(sources, body: str, held: bool) -> None:
    assert _holds("memory/requests/r.md", request(body, *sources)) is held


def test_knowledge_last_sources_count_too() -> None:
    text = knowledge("Package manager", "Which one we use.").replace(
        "last_sources: []", "last_sources:\n  - session_id: s1\n    range: [4, 4]")
    assert _holds("knowledge/pm.md", text)


def test_not_a_record_is_nothing() -> None:
    assert view("src/app.py", b"print()") is None
    assert view("memory/_staging/x.json", b"{}") is None
    broken = view("memory/requests/broken.md", b"---\nsources: [\n---\nUse pnpm instead of npm.\n")
    assert broken is not None and broken.sources == ()
