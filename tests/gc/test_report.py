"""gc-report over a crafted workspace holding exactly one instance of every candidate type."""

from __future__ import annotations

import datetime as dt
import hashlib
import io
import json
from pathlib import Path

import pytest
from rich.console import Console

from memcli.cli import main
from memcli.commands.gc_report import report
from memcli.gc import TYPES, RecordUsage, build_report
from memcli.workspace import Workspace

NOW = dt.datetime(2026, 6, 1, tzinfo=dt.UTC)
OLD = "2025-01-01T10:00:00+00:00"
DUP = ("Deploys go through the staging cluster first; after a green smoke test the release "
       "manager promotes the image to production with the promote script and watches the error rate.")


def craft(root: Path, b) -> dict[str, str]:
    """Build the workspace; return candidate type → the path expected to carry it."""
    b.git_init(root)
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text("print('app')\n")
    (root / "src" / "old_job.py").write_text("print('old')\n")
    b.summary(root, "# Shop\n\nA small shop service. See `resident-rule` and #linked-hash.")
    # similar-slugs: three near-identical request slugs (distinct short bodies)
    for slug in ("api-retry", "api-retry2", "api-retry3"):
        b.request(root, slug, f"Request {slug}.")
    b.decision(root, "many-sources", "Uses many sessions.", sources=11)  # sources-overflow
    b.request(root, "padded-request", b.prose(1, 320))  # low-value-large (> 1500 chars, one Source)
    b.decision(root, "first-pick", status="replaced", replaced_by="second-take")  # replaced-chain-long
    b.decision(root, "second-take", status="replaced", replaced_by="third-way")
    b.decision(root, "third-way", status="replaced", replaced_by="final-call")
    b.decision(root, "final-call", "The current choice; mentions `src/app.py` and `data/shop.db`.")
    b.request(root, "forgotten-request", updated=OLD)  # stale
    b.decision(root, "old-choice", status="replaced", replaced_by="final-call",
               updated="2026-01-10T00:00:00+00:00")
    b.knowledge(root, "deploy-howto", DUP, kind="howto", invoked=True)  # near-duplicate pair
    b.knowledge(root, "deploy-steps", DUP.replace("watches", "monitors"), kind="howto", invoked=True)
    b.knowledge(root, "orphan-term", kind="term")  # unreferenced-knowledge
    # knowledge referenced in every supported way (none of them is a candidate)
    b.knowledge(root, "resident-rule", kind="rule", invoked=True, field="model_invokation")
    b.knowledge(root, "linked-hash")
    b.knowledge(root, "linked-tick")
    b.knowledge(root, "linked-path")
    b.knowledge(root, "linked-requires")
    b.knowledge(root, "idle-note", invoked=True)  # unused, by the crafted metrics below
    b.knowledge(root, "busy-note", "Uses `linked-tick` and [x](../knowledge/linked-path.md).", invoked=True)
    b.workflow(root, "release", ["linked-requires"], "Run `src/old_job.py` first.")  # code-drift
    b.commit_all(root, "records and code")
    b.git(root, "rm", "-q", "src/old_job.py")
    b.commit_all(root, "drop the old job")
    return {
        "similar-slugs": "memory/requests/api-retry.md",
        "sources-overflow": "memory/decisions/many-sources.md",
        "low-value-large": "memory/requests/padded-request.md",
        "replaced-chain-long": "memory/decisions/first-pick.md",
        "stale": "memory/requests/forgotten-request.md",
        "replaced-long": "memory/decisions/old-choice.md",
        "near-duplicate": "knowledge/deploy-howto.md",
        "unreferenced-knowledge": "knowledge/orphan-term.md",
        "unused": "knowledge/idle-note.md",
        "code-drift": "memory/workflow/release.md",
    }


def metrics() -> dict[str, RecordUsage]:
    since = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    return {
        "knowledge/idle-note.md": RecordUsage(0, 5_000_000, None, since),
        "knowledge/busy-note.md": RecordUsage(40, 5_000_000, dt.datetime(2026, 5, 30, tzinfo=dt.UTC), since),
        # rarely used, but used recently: not a candidate
        "knowledge/resident-rule.md": RecordUsage(1, 5_000_000, dt.datetime(2026, 5, 25, tzinfo=dt.UTC),
                                                  since),
    }


@pytest.fixture
def crafted(ws_root: Path, b) -> tuple[Workspace, dict[str, str]]:
    expected = craft(ws_root, b)
    return Workspace.open(ws_root), expected


def test_each_candidate_type_found_exactly_once(crafted) -> None:
    ws, expected = crafted
    report = build_report(ws, metrics(), now=NOW)
    assert set(expected) == set(TYPES)  # the crafted workspace covers every type
    got = {}
    for c in report.candidates:
        assert c.type not in got, f"{c.type} reported twice: {got.get(c.type)} and {c}"
        got[c.type] = c
    assert sorted(got) == sorted(TYPES), [c.to_json_dict() for c in report.candidates]
    for kind, path in expected.items():
        assert got[kind].paths[0] == path, (kind, got[kind])
    assert got["near-duplicate"].paths == ("knowledge/deploy-howto.md", "knowledge/deploy-steps.md")
    assert got["code-drift"].evidence["path"] == "src/old_job.py"
    assert got["code-drift"].evidence["status"] == "deleted"
    assert got["stale"].evidence["age_days"] > 180
    assert got["unused"].evidence["invokes"] == 0
    assert report.records == 23 and not report.skipped


def test_without_metrics_no_unused_and_nothing_else_changes(crafted) -> None:
    ws, _ = crafted
    with_metrics = build_report(ws, metrics(), now=NOW)
    without = build_report(ws, now=NOW)
    expected = [c.type for c in with_metrics.candidates if c.type != "unused"]
    assert [c.type for c in without.candidates] == expected
    assert without.to_json_dict()["metrics"] == {"available": False}


def test_usage_figures_ride_along_on_other_candidates(ws_root: Path, b) -> None:
    b.knowledge(ws_root, "old-fact", updated=OLD, invoked=True)
    ws = Workspace.open(ws_root)
    figures = {"knowledge/old-fact.md": RecordUsage(30, 1_000_000)}
    (stale,) = build_report(ws, figures, now=NOW).candidates
    assert stale.type == "stale"
    assert stale.evidence["usage"]["protected"] is True  # Phase 2 must not drop it


def test_json_schema_is_stable_and_deterministic(crafted) -> None:
    ws, _ = crafted
    first = build_report(ws, metrics(), now=NOW).to_json_dict()
    again = build_report(ws, metrics(), now=NOW).to_json_dict()
    assert first == again
    assert (first["schema"], first["version"]) == ("memcli.gc-report", 1)
    assert set(first) == {"schema", "version", "generated_at", "records", "skipped", "config", "metrics",
                          "code_drift", "counts", "candidates"}
    assert first["counts"] == {t: 1 for t in TYPES}
    for c in first["candidates"]:
        assert set(c) == {"type", "category", "paths", "reason", "evidence"}
        assert c["category"] in {"outdated", "superseded", "unused", "noisy"}
    json.dumps(first)  # JSON-ready as it is


def _digest(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("fmt", ["text", "markdown", "json"])
def test_formats_print_and_change_nothing(crafted, fmt: str, capsys: pytest.CaptureFixture[str]) -> None:
    ws, expected = crafted
    before = _digest(ws.root)
    wide = Console(file=io.StringIO(), width=400)  # so the table does not fold paths
    assert report(ws, fmt=fmt, console=wide) == 0
    out = capsys.readouterr().out + wide.file.getvalue()
    assert _digest(ws.root) == before
    for path in expected.values():
        if path != "knowledge/idle-note.md":  # `unused` needs metrics, which were never counted here
            assert path in out, (fmt, path)
    if fmt == "json":
        assert json.loads(out)["counts"]["code-drift"] == 1
    if fmt == "markdown":
        assert out.startswith("## memcli gc-report")
        assert "### code-drift (1)" in out


def test_nothing_to_report_is_one_line(ws_root: Path, b, capsys: pytest.CaptureFixture[str]) -> None:
    today = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")  # the command uses the real clock
    b.summary(ws_root, updated=today)
    b.decision(ws_root, "fresh-choice", updated=today)
    for fmt in ("text", "markdown"):
        assert main_exit(["gc-report", "-w", str(ws_root), "--format", fmt]) == 0
        out = capsys.readouterr().out
        assert out.strip().splitlines() == ["Nothing to report: 2 records checked, no GC candidates."]


def test_broken_records_are_skipped_not_fatal(ws_root: Path, b) -> None:
    b.write(ws_root, "knowledge/broken.md", "kind: [unclosed\n", "body")
    b.request(ws_root, "fine-request", updated=OLD)
    report = build_report(Workspace.open(ws_root), now=NOW)
    assert report.skipped == ("knowledge/broken.md",)
    assert [c.type for c in report.candidates] == ["stale"]
    assert report.drift_note and report.drift_note.startswith("skipped:")  # not a git repository


def test_unknown_format_is_a_usage_error(ws_root: Path, b) -> None:
    b.summary(ws_root)
    assert main_exit(["gc-report", "-w", str(ws_root), "--format", "yaml"]) == 2


def main_exit(argv: list[str]) -> int:
    with pytest.raises(SystemExit) as exc:
        main(argv)
    return int(exc.value.code)
