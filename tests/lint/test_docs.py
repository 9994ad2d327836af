"""Rule documentation stays complete and in sync with the registry."""

from __future__ import annotations

from pathlib import Path

import pytest

from memcli.cli import main
from memcli.lint.docs import doc_of, render_markdown
from memcli.lint.registry import RULES

DOCS = Path(__file__).resolve().parents[2] / "docs" / "rules.md"


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.code)
def test_every_rule_documents_what_why_and_examples(rule) -> None:
    doc = doc_of(rule)
    assert len(doc.split("\n\n", 1)[0]) > 20  # the "what" paragraph
    for part in ("Why: ", "Passing", "Failing"):
        assert part in doc, (rule.code, part)


def test_docs_rules_md_lists_every_code_and_is_generated_from_the_registry() -> None:
    text = DOCS.read_text(encoding="utf-8")
    table = [line for line in text.splitlines() if line.startswith("| `")]
    assert [line.split("`")[1] for line in table] == [r.code for r in RULES]
    for rule in RULES:
        assert f"## `{rule.code}` ({rule.alias}, {rule.severity}" in text
    assert text == render_markdown(), "regenerate: python -m memcli.lint.docs --write docs/rules.md"


def test_rules_command_lists_and_explains(capsys) -> None:
    with pytest.raises(SystemExit) as listed:
        main(["rules"])
    out = capsys.readouterr().out
    assert listed.value.code == 0
    assert [line.split()[1] for line in out.splitlines()] == [r.code for r in RULES]
    for name in ("dangling-reference", "E07", "e07"):
        with pytest.raises(SystemExit) as one:
            main(["rules", name])
        out = capsys.readouterr().out
        assert one.value.code == 0 and out.startswith("dangling-reference (E07, error")
    with pytest.raises(SystemExit) as unknown:
        main(["rules", "no-such-rule"])
    assert unknown.value.code == 2
