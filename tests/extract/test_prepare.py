"""Entries → redacted parts → chunks: priorities under the budget, entry boundaries, injected text."""

from __future__ import annotations

import pytest

from memcli.extract.prepare import chunk, cut, estimate_tokens, prepare
from memcli.transcript.model import Entry, ToolCall, ToolResult

HUMAN = "Please keep the search index in SQLite; Postgres is too heavy for a CLI."
FINAL = "Done: the index now lives in .memcli/index.sqlite and rebuilds when stale."


def session(tool_output: str = "x" * 30_000) -> list[Entry]:
    return [
        Entry(0, "user", "<environment_context>cwd=/repo</environment_context>", injected=True),
        Entry(1, "user", HUMAN),
        Entry(2, "assistant", "Let me look at the current storage code first.",
              tool_calls=(ToolCall("Bash", {"command": "rg -n sqlite memcli/" + " --glob '*.py'" * 30}),)),
        Entry(3, "user", "", injected=True, tool_results=(ToolResult(tool_output),)),
        Entry(4, "assistant", FINAL, final=True, end=6),
    ]


def prepared(entries: list[Entry], tool_chars: int = 2_000):
    return [p for p in (prepare(e, tool_chars) for e in entries) if p is not None]


def test_injected_context_dropped_but_tool_results_kept() -> None:
    items = prepared(session("PASSED 12 tests"))
    assert [i.start for i in items] == [1, 2, 3, 4]
    text = chunk(items, 10_000)[0].text()
    assert "environment_context" not in text and "PASSED 12 tests" in text
    assert "→ Bash(" in text and "(final)" in text


def test_everything_fits_tool_output_cut_to_bound() -> None:
    [piece] = chunk(prepared(session()), 10_000)
    text = piece.text()
    assert piece.level == 5 and "chars cut" in text and "x" * 2_001 not in text
    assert piece.range == (1, 6)  # the last entry spans lines 4..6


@pytest.mark.parametrize("budget, keeps_brief, keeps_call", [(600, True, True), (230, False, True),
                                                             (150, False, False)])
def test_under_a_tight_budget_low_priority_parts_go_first(budget: int, keeps_brief: bool,
                                                          keeps_call: bool) -> None:
    pieces = chunk(prepared(session()), budget)
    text = pieces[0].text()
    assert len(pieces) == 1
    assert HUMAN in text and FINAL in text  # prompts and final answers always survive
    assert ("xxxx" in text) is keeps_brief
    assert ("rg -n sqlite" in text) is keeps_call
    assert "left out for size" in text or keeps_brief


def test_chunks_cut_at_entry_boundaries_and_cover_everything() -> None:
    entries = [Entry(i, "user" if i % 2 == 0 else "assistant", f"message {i} " + "word " * 80)
               for i in range(60)]
    pieces = chunk(prepared(entries), 800)
    assert len(pieces) > 3
    starts = [e.start for p in pieces for e in p.entries]
    assert starts == list(range(60))  # every entry once, in order
    for a, b in zip(pieces, pieces[1:], strict=False):
        assert a.range[1] < b.range[0]
    assert all(estimate_tokens(p.text()) <= 800 * 1.1 for p in pieces)


def test_one_entry_larger_than_a_chunk_is_shrunk_not_dropped() -> None:
    big = Entry(0, "user", "start " + "長い説明。" * 5_000 + " end")
    [piece] = chunk(prepared([big, Entry(1, "assistant", "ok")])[:1], 1_000)
    text = piece.text()
    assert text.count("start") == 1 and "end" in text and "chars cut" in text
    assert estimate_tokens(text) < 1_200


def test_secrets_are_redacted_before_sizing_and_counted() -> None:
    key = "AKIA" + "Z7QRS2LMNOPQ4XYW"
    items = prepared([Entry(0, "user", f"deploy with {key}"),
                      Entry(1, "user", "", injected=True,
                            tool_results=(ToolResult("password = 'hunter2Hunter2!'\n" + "y" * 5_000),))])
    [piece] = chunk(items, 200)  # forces the brief excerpt of the tool output
    assert piece.redactions == 2
    assert key not in piece.text() and "hunter2Hunter2" not in piece.text()
    assert "[REDACTED:aws-access-key-id]" in piece.text()


def test_token_estimate_counts_cjk_per_character() -> None:
    assert 95 <= estimate_tokens("a" * 400) <= 105
    assert 295 <= estimate_tokens("日本語" * 100) <= 305


def test_cut_keeps_head_and_tail() -> None:
    text = "HEAD" + "-" * 1_000 + "TAIL"
    out = cut(text, 120)
    assert out.startswith("HEAD") and out.endswith("TAIL") and "chars cut" in out
    assert cut("short", 120) == "short"
