"""Every reader prints the same through the record store as reading the files itself: context,
lint, gc-report and why, on the example and a generated workspace, cold and warm, after edits —
including an edit the stamp cannot show (same size, same mtime second) — and with links and
folders where record files would be."""

from __future__ import annotations

import datetime as dt
import io
import json
import os
import shutil
from contextlib import redirect_stdout
from pathlib import Path

import pytest
from store.kit import TS, write

from memcli.commands.lint import check as lint_run
from memcli.context import build_context
from memcli.errors import MemcliError
from memcli.gc.facts import FactsCache
from memcli.gc.render import render_json, render_markdown
from memcli.gc.report import build_report
from memcli.lint.cache import ResultCache
from memcli.lint.snapshot import Snapshot
from memcli.store import open_store
from memcli.tokens import EstimateCounter
from memcli.why import story
from memcli.workspace import Workspace

NOW = dt.datetime(2026, 6, 1, tzinfo=dt.UTC)
BUDGETS = (5000, 400)


def context_both(ws: Workspace) -> None:
    for budget in BUDGETS:
        counter = EstimateCounter()
        files = build_context(ws, budget, counter, snapshot=Snapshot(ws)).to_json_dict()
        assert build_context(ws, budget, counter).to_json_dict() == files
    assert build_context(ws).to_json_dict() == build_context(ws, snapshot=Snapshot(ws)).to_json_dict()


def lint_both(ws: Workspace, paths: list[Path]) -> None:
    def out(use_cache: bool) -> tuple[int, str]:
        buf = io.StringIO()
        with redirect_stdout(buf):
            code = lint_run(ws, paths, fmt="json", use_cache=use_cache)
        return code, buf.getvalue()

    assert out(True) == out(False)


def gc_both(ws: Workspace) -> None:
    def text(report) -> str:
        return render_json(report) + render_markdown(report)

    files = text(build_report(ws, now=NOW))
    with open_store(ws) as store:
        store.refresh()
        cache, facts = ResultCache(store, ws.config.lint), FactsCache(store)
        assert text(build_report(ws, now=NOW, cache=cache, facts_cache=facts)) == files
        cache.save(whole=True)
        facts.save()


def why_both(ws: Workspace, targets: list[str]) -> None:
    def told(target: str, use_store: bool) -> object:
        try:
            return story(ws, target, use_store=use_store).to_json()
        except MemcliError as exc:  # the same refusal either way
            return str(exc)

    for target in targets:
        assert told(target, True) == told(target, False)


def every_reader(root: Path, targets: list[str]) -> None:
    ws = Workspace.open(root)
    for _ in range(2):  # cold, then warm
        context_both(ws)
        lint_both(ws, [])
        lint_both(ws, [root / targets[0]])
        gc_both(ws)
        why_both(ws, targets)


def test_example_workspace(example: Path) -> None:
    every_reader(example, ["knowledge/sqlite-backup.md", "summary"])


def test_generated_workspace(generated: Path) -> None:
    targets = ["memory/decisions/mail-v3.md", "mail-v1", "knowledge/anchored-rule.md", "knowledge/when.md",
               "knowledge/omap.md", "knowledge/linked-rule.md"]
    every_reader(generated, targets)
    assert "linked-rule" in build_context(Workspace.open(generated)).text  # a link is still a record
    ws = Workspace.open(generated)
    assert story(ws, "mail-v3").replaces == ["memory/decisions/mail-v2.md"]  # not the hidden draft


def _same_size_same_second(path: Path, old: str, new: str) -> None:
    """Rewrite `path` replacing `old` by `new` (same length) and put its mtime back to the same
    whole second it had: what a coarse file system shows of an edit made within its time step."""
    assert len(old) == len(new)
    second = path.stat().st_mtime_ns // 10**9 * 10**9
    os.utime(path, ns=(second, second))
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace(old, new), encoding="utf-8")
    os.utime(path, ns=(second, second))


def test_an_edit_within_the_racy_window_is_seen_by_every_reader(generated: Path) -> None:
    ws = Workspace.open(generated)
    knowledge = generated / "knowledge/anchored-rule.md"
    decision = generated / "memory/decisions/mail-v1.md"
    summary = generated / "memory/summary.md"
    for path in (knowledge, decision, summary):
        second = path.stat().st_mtime_ns // 10**9 * 10**9
        os.utime(path, ns=(second, second))
    every_reader(generated, ["knowledge/anchored-rule.md", "mail-v1"])  # the store has read them
    before = build_context(ws, 5000, EstimateCounter()).text
    _same_size_same_second(knowledge, "kind: rule", "kind: term")
    _same_size_same_second(decision, "replaced_by: mail-v2", "replaced_by: mail-v9")
    _same_size_same_second(summary, "# Project summary", "# Project SUMMARY")
    every_reader(generated, ["knowledge/anchored-rule.md", "mail-v1"])
    after = build_context(ws, 5000, EstimateCounter()).text
    assert after != before and "# Project SUMMARY" in after
    assert story(ws, "mail-v1").replaced_by == "mail-v9"


def test_edits_deletions_and_renames(generated: Path) -> None:
    every_reader(generated, ["memory/decisions/mail-v2.md"])
    (generated / "memory/decisions/mail-v3.md").rename(generated / "memory/decisions/mail-v4.md")
    (generated / "knowledge/old-spelling.md").unlink()
    write(generated, "knowledge/fresh-rule.md", f"---\n{TS}kind: rule\ndescription: Fresh.\n"
          "model_invocation: true\nuser_invocable: true\nlast_sources: []\n---\nBody.\n")
    write(generated, "knowledge/bad-yaml.md", f"---\n{TS}kind: fact\ndescription: Fixed now.\n"
          "model_invocation: true\nuser_invocable: true\nlast_sources: []\n---\nBody.\n")
    every_reader(generated, ["knowledge/fresh-rule.md", "mail-v2"])


@pytest.mark.parametrize("linked", ["knowledge", "memory"])
def test_a_linked_record_folder(generated: Path, tmp_path: Path, linked: str) -> None:
    # The Linter's walk does not follow a linked folder: the store readers must agree with it.
    target = tmp_path / f"real-{linked}"
    shutil.move(generated / linked, target)
    os.symlink(target, generated / linked)
    every_reader(generated, ["knowledge/anchored-rule.md" if linked == "memory" else "memory/summary.md"])


def test_a_summary_that_is_a_link(example: Path) -> None:
    summary = example / "memory/summary.md"
    shutil.move(summary, example / "summary-real.md")
    os.symlink(example / "summary-real.md", summary)
    every_reader(example, ["memory/summary.md", "summary"])


def test_no_store_without_a_writable_state_folder(example: Path, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "state-is-a-file"
    blocker.write_text("x")
    monkeypatch.setenv("MEMCLI_STATE_DIR", str(blocker))
    ws = Workspace.open(example)
    assert open_store(ws) is None
    context_both(ws)
    lint_both(ws, [])
    why_both(ws, ["knowledge/sqlite-backup.md"])


def test_json_of_a_context_run_is_unchanged(example: Path) -> None:
    ws = Workspace.open(example)
    data = build_context(ws).to_json_dict()
    assert json.loads(json.dumps(data)) == build_context(ws, snapshot=Snapshot(ws)).to_json_dict()
