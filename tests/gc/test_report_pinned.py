"""The report of the crafted workspace, byte for byte: pinned from the implementation before the
per-record facts and their cache (so a speed-up cannot quietly change a candidate), and equal
with cold caches, warm caches, and after edits that a stale cache entry would get wrong.

Regenerate the pinned file only for an intended change of the report:
    python tests/gc/test_report_pinned.py > tests/gc/data/crafted_report.txt
"""

from __future__ import annotations

import importlib.util
import os
import sys
import tempfile
from pathlib import Path

import pytest

from memcli.gc.render import render_json, render_markdown
from memcli.gc.report import build_report
from memcli.store import open_store, store_path
from memcli.workspace import Workspace

HERE = Path(__file__).resolve().parent
PINNED = HERE / "data" / "crafted_report.txt"
# Fixed commit dates, so the commits (named in code-drift evidence) are the same on every run.
DATE = "2026-05-01T12:00:00+00:00"
GIT_DATES = {"GIT_AUTHOR_DATE": DATE, "GIT_COMMITTER_DATE": DATE}


def _sibling(name: str):
    # tests/gc cannot be imported as a package (`gc` is a standard-library module)
    spec = importlib.util.spec_from_file_location(f"gc_pinned_{name}", HERE / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


report_tests = _sibling("test_report")


def rendered(ws: Workspace, **caches: object) -> str:
    report = build_report(ws, report_tests.metrics(), now=report_tests.NOW, **caches)
    return render_json(report) + "\n" + render_markdown(report) + "\n"


def cached(ws: Workspace, computed: list[int] | None = None) -> str:
    """A report as `memcli gc-report` makes it: through both caches, saved afterwards."""
    from memcli.gc.facts import FactsCache  # (not at the top: `__main__` may run older code)
    from memcli.lint.cache import ResultCache
    from memcli.store import open_store

    with open_store(ws) as store:
        store.refresh()
        cache, facts = ResultCache(store, ws.config.lint), FactsCache(store)
        out = rendered(ws, cache=cache, facts_cache=facts)
        cache.save(whole=True)
        facts.save()
    if computed is not None:
        computed.append(facts.computed)
    return out


@pytest.fixture
def crafted(ws_root: Path, b, monkeypatch: pytest.MonkeyPatch) -> Workspace:
    for name, value in GIT_DATES.items():
        monkeypatch.setenv(name, value)
    report_tests.craft(ws_root, b)
    return Workspace.open(ws_root)


def test_report_is_byte_identical_to_the_pinned_one(crafted: Workspace) -> None:
    assert rendered(crafted) == PINNED.read_text(encoding="utf-8")


def test_cold_and_warm_caches_give_the_same_bytes(crafted: Workspace) -> None:
    pinned = PINNED.read_text(encoding="utf-8")
    computed: list[int] = []
    assert cached(crafted, computed) == pinned  # cold: both caches are written
    assert store_path(crafted.state_dir, crafted.root).is_file()
    assert cached(crafted, computed) == pinned  # warm: facts and pair scores come from the cache
    assert cached(crafted, computed) == pinned
    assert computed[0] > 23 and computed[1:] == [0, 0]  # 23 records' facts, + the pair's score


def test_edits_after_a_warm_run_are_seen(crafted: Workspace, b) -> None:
    root = crafted.root
    cached(crafted)
    # The near-duplicate pair stops being one; the orphan gets a reference; a fresh request is
    # backdated (stale); the drifted path is fixed.
    b.knowledge(root, "deploy-steps", "Entirely different words about rotating the on-call pager.",
                kind="howto", invoked=True)
    b.request(root, "forgotten-request", "Now see #orphan-term.", updated=report_tests.OLD)
    b.request(root, "api-retry", updated=report_tests.OLD)
    b.workflow(root, "release", ["linked-requires"], "Run `src/app.py` first.")
    after = cached(crafted)
    assert after == rendered(crafted)  # the same as computed from scratch
    assert after != PINNED.read_text(encoding="utf-8")
    assert '"near-duplicate": 0' in after and '"code-drift": 0' in after
    assert '"unreferenced-knowledge": 0' in after and '"stale": 2' in after


def test_a_garbage_store_is_a_cold_run(crafted: Workspace) -> None:
    file = store_path(crafted.state_dir, crafted.root)
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_bytes(b"\x00not a database")
    assert cached(crafted) == PINNED.read_text(encoding="utf-8")


def test_garbage_cache_entries_are_recomputed(crafted: Workspace) -> None:
    cached(crafted)
    with open_store(crafted) as store:
        store.conn.execute("UPDATE cache SET value = x'00ff'")
    assert cached(crafted) == PINNED.read_text(encoding="utf-8")


def test_resident_index_is_recomputed_when_the_summary_crowds_it_out(crafted: Workspace, b) -> None:
    cached(crafted)
    # A summary that fills the token budget: the knowledge index is cut, so model-invoked
    # knowledge that nothing names becomes unreferenced (a stale memo would hide it).
    b.summary(crafted.root, "# Shop\n\nSee `resident-rule` and #linked-hash.\n\n" + b.prose(3, 6000))
    after = cached(crafted)
    assert after == rendered(crafted)
    assert '"unreferenced-knowledge": 1' not in after


if __name__ == "__main__":  # print the report to pin (see the module docstring)
    os.environ.update(GIT_DATES)
    sys.path.insert(0, str(HERE.parent))
    from conftest import GIT_ENV  # the identity tests commit with (tests/conftest.py)

    os.environ.update(GIT_ENV)
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["MEMCLI_STATE_DIR"] = str(Path(tmp) / "state")
        os.environ["HOME"] = tmp  # no personal git config
        root = Path(tmp) / "ws"
        root.mkdir()
        report_tests.craft(root, _sibling("conftest").Builders)
        sys.stdout.write(rendered(Workspace.open(root)))
