"""A large cold run checks files in forked helpers; the verdicts are exactly those of one process."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from lint.kit import make_workspace, path_of, record

from memcli import forked
from memcli.commands.lint import check
from memcli.lint import parallel
from memcli.workspace import Workspace


def _files() -> dict[str, str]:
    files = {}
    for i in range(60):
        files[path_of("decision", f"d{i:02d}")] = record(
            "decision",
            status=("open", "Done", "replaced")[i % 3],
            replaced_by=f"d{i + 1:02d}" if i % 3 == 2 else None,
            body="x" * (1600 if i % 7 == 0 else 10) + "\n",
        )
    for i in range(30):
        files[path_of("knowledge", f"k{i:02d}")] = record(
            "knowledge", body=("db: postgres://app:s3cr3tPass@db/x\n" if i % 5 == 0 else "Fine.\n")
        )
        files[path_of("workflow", f"w{i:02d}")] = record("workflow", requires=f"[k{i:02d}, gone{i % 4}]")
    files["memory/decisions/broken.md"] = "no frontmatter here\n"
    files["memory/stray.txt"] = "not a record\n"
    return files


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    return make_workspace(tmp_path / "ws", _files())


@pytest.fixture
def single_threaded(monkeypatch) -> None:
    """Threads other tests in this process left running would (rightly) keep lint from forking;
    the runs here start none themselves."""
    monkeypatch.setattr(forked.threading, "active_count", lambda: 1)


def _lint(root: Path, capsys, *, use_cache: bool) -> tuple[int, list]:
    code = check(Workspace.open(root), [], fmt="json", use_cache=use_cache)
    return code, json.loads(capsys.readouterr().out)["findings"]


def test_parallel_run_equals_a_single_process_run(ws: Path, capsys, monkeypatch, single_threaded) -> None:
    monkeypatch.setattr(parallel, "MIN_FILES", 10**9)
    alone = _lint(ws, capsys, use_cache=False)
    codes = {f["code"] for f in alone[1]}
    assert {"invalid-status", "dangling-reference", "secret", "parse", "unknown-location"} <= codes
    monkeypatch.setattr(parallel, "MIN_FILES", 20)
    monkeypatch.setattr(forked, "cores", lambda: 3)
    started = []
    real_fork = parallel._fork

    def counting_fork(*args):  # type: ignore[no-untyped-def]
        helper = real_fork(*args)
        started.append(helper)
        return helper

    monkeypatch.setattr(parallel, "_fork", counting_fork)
    assert _lint(ws, capsys, use_cache=False) == alone
    assert len(started) == 2 and None not in started  # two helpers did two thirds of the work
    assert _lint(ws, capsys, use_cache=True) == alone  # cold cache: helpers fill it
    monkeypatch.setattr(parallel, "MIN_FILES", 10**9)
    assert _lint(ws, capsys, use_cache=True) == alone  # warm, in one process, from what they filled


def test_a_failing_helper_leaves_its_share_to_the_parent(
    ws: Path, capsys, monkeypatch, single_threaded
) -> None:
    monkeypatch.setattr(parallel, "MIN_FILES", 10**9)
    alone = _lint(ws, capsys, use_cache=False)
    monkeypatch.setattr(parallel, "MIN_FILES", 20)
    monkeypatch.setattr(forked, "cores", lambda: 2)

    def crash(*args: object) -> None:
        raise RuntimeError("helper died")

    monkeypatch.setattr(parallel, "_check_share", crash)  # only helpers call it
    started = []
    real_fork = parallel._fork
    monkeypatch.setattr(parallel, "_fork", lambda *a: started.append(real_fork(*a)) or started[-1])
    assert _lint(ws, capsys, use_cache=True) == alone
    assert len(started) == 1 and started[0] is not None


def test_small_runs_and_warm_caches_stay_in_one_process(ws: Path) -> None:
    from memcli.lint.cache import ResultCache
    from memcli.lint.snapshot import Snapshot

    workspace = Workspace.open(ws)
    snap = Snapshot(workspace)
    assert parallel.procs_for(snap, 50) == 1  # below MIN_FILES
    from memcli.store import RecordStore

    cache = ResultCache(RecordStore(workspace.root), workspace.config.lint)  # an empty store, in memory
    assert parallel.procs_for(Snapshot(workspace, {"memory/x.md": b""}, cache=cache), 10**6) == 1  # tool path
    import threading

    if threading.active_count() == 1:  # else other tests left threads behind: forking is off
        assert parallel.procs_for(Snapshot(workspace, cache=cache), 10**6) > 1 or parallel._cores() == 1
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:  # never fork a multi-threaded process
        assert parallel.procs_for(Snapshot(workspace, cache=cache), 10**6) == 1
    finally:
        stop.set()
        other.join()
