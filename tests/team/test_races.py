"""Shared staging under races (real processes, a bare remote): nothing lost, nothing used twice."""

from __future__ import annotations

import random
import string
from pathlib import Path

from consolidate.helpers import write_staging
from team.kit import RECORD, make_team, published, worker

ITEMS = {"decisions": [{"title": "Review", "decision": "Review agent output", "rationale": "safety"}]}


def _stage(clone, *ids: str) -> None:
    for n, sid in enumerate(ids):
        write_staging(clone.root, sid, f"session-{sid}", (n, n + 2), ITEMS)


def _ok(done) -> None:
    assert done.returncode == 0, done.stdout + done.stderr


def test_two_ci_jobs_consume_the_same_staging_once(tmp_path: Path, fake_llm) -> None:
    fake_llm.responder = worker
    remote, team = make_team(tmp_path, "a", "ci1", "ci2")
    _stage(team["a"], "i1", "i2", "i3")
    _ok(team["a"].memcli("staging", "push", "--name", "a"))
    for job in ("ci1", "ci2"):
        _ok(team[job].memcli("staging", "pull"))
        assert team[job].staged() == {"i1", "i2", "i3"}
    runs = {job: team[job].start("consolidate") for job in ("ci1", "ci2")}
    codes = {job: proc.wait(timeout=300) for job, proc in runs.items()}
    assert sorted(codes.values()) == [0, 4], {j: p.stderr.read() for j, p in runs.items()}
    winner = next(j for j, c in codes.items() if c == 0)
    loser = next(j for j, c in codes.items() if c == 4)
    assert "another consolidation already used 3" in runs[loser].stderr.read()
    assert published(remote) == {}
    sessions = {s for s, _, _ in team[winner].record_sources()}
    assert {"session-i1", "session-i2", "session-i3"} <= sessions  # nothing lost
    _ok(team[winner].git("push", "-q", "origin", "HEAD:main"))  # only the winner's run goes on


def test_a_developer_publishes_while_ci_clears(tmp_path: Path, fake_llm) -> None:
    fake_llm.responder = worker
    remote, team = make_team(tmp_path, "a", "ci")
    a, ci = team["a"], team["ci"]
    _stage(a, "first")
    _ok(a.memcli("staging", "push", "--name", "a"))
    _ok(ci.memcli("staging", "pull"))
    _stage(a, "second")  # published after CI read the ref: CI's lease is stale now
    _ok(a.memcli("staging", "push", "--name", "a"))
    assert published(remote) == {"a": {"first", "second"}}
    _ok(ci.memcli("consolidate"))  # uses "first" only; its removal retries on the moved ref
    assert published(remote) == {"a": {"second"}}
    assert {s for s, _, _ in ci.record_sources()} >= {"session-first"}
    assert "session-second" not in {s for s, _, _ in ci.record_sources()}
    # and the other way round: A's lease is stale (CI changed A's ref), A retries; "first" stays used
    _stage(a, "third")
    _ok(a.memcli("staging", "push", "--name", "a"))
    assert published(remote) == {"a": {"second", "third"}}
    _ok(ci.memcli("staging", "pull"))
    assert ci.staged() == {"second", "third"}


def test_publishing_and_clearing_at_the_same_moment(tmp_path: Path, fake_llm) -> None:
    fake_llm.responder = worker
    remote, team = make_team(tmp_path, "a", "ci")
    a, ci = team["a"], team["ci"]
    _stage(a, "old1", "old2")
    _ok(a.memcli("staging", "push", "--name", "a"))
    _ok(ci.memcli("staging", "pull"))
    consolidating = ci.start("consolidate")
    fresh = [f"new{n}" for n in range(4)]
    for sid in fresh:  # one process per publication, racing the consolidation's removal
        _stage(a, sid)
        _ok(a.memcli("staging", "push", "--name", "a"))
    assert consolidating.wait(timeout=300) == 0, consolidating.stderr.read()
    assert published(remote) == {"a": set(fresh)}


def test_push_holds_back_a_file_with_a_secret(tmp_path: Path) -> None:
    remote, team = make_team(tmp_path, "a")
    a = team["a"]
    _stage(a, "clean")
    key = "AKIA" + "".join(random.choices(string.ascii_uppercase + string.digits, k=16))
    write_staging(a.root, "leaky", "s", (0, 1),
                  {"decisions": [{"title": "Keys", "decision": f"export AWS_ACCESS_KEY_ID={key}"}]})
    done = a.memcli("staging", "push", "--name", "a")
    assert done.returncode == 1 and "leaky.json" in done.stderr and "secret" in done.stderr
    assert published(remote) == {"a": {"clean"}}
    assert a.staged() == {"leaky"}  # kept here, for its owner to fix


def test_pull_deduplicates_by_id_and_keeps_local_files(tmp_path: Path) -> None:
    remote, team = make_team(tmp_path, "a", "b")
    a, b = team["a"], team["b"]
    _stage(a, "shared", "only-a")
    _ok(a.memcli("staging", "push", "--name", "a"))
    _stage(b, "shared")  # the same id (the same chunk extracted the same way) already here
    local = (b.root / "memory/_staging/shared.json").read_bytes()
    done = b.memcli("staging", "pull")
    _ok(done)
    assert "1 new staging files" in done.stdout and "1 already here" in done.stdout
    assert b.staged() == {"shared", "only-a"}
    assert (b.root / "memory/_staging/shared.json").read_bytes() == local
    assert b.git("status", "--porcelain").stdout == ""  # staging is git-ignored: nothing to commit
    _stage(b, "only-b")
    _ok(b.memcli("staging", "push", "--name", "b"))  # what b pulled is not published a second time
    assert published(remote) == {"a": {"shared", "only-a"}, "b": {"only-b"}}
    assert b.staged() == {"shared", "only-a"}
    assert not (b.root / RECORD).read_text(encoding="utf-8").count("<<<<<<<")


def test_pull_keeps_the_staging_bound_and_leaves_the_rest_on_the_remote(tmp_path: Path) -> None:
    remote, team = make_team(tmp_path, "a", "b")
    a, b = team["a"], team["b"]
    _stage(a, "one", "two", "three")
    _ok(a.memcli("staging", "push", "--name", "a"))
    config = (b.root / "memcli.toml").read_text(encoding="utf-8")
    (b.root / "memcli.toml").write_text(config.replace("[extract]\n", "[extract]\nmax_staging = 2\n"),
                                        encoding="utf-8")
    done = b.memcli("staging", "pull")
    _ok(done)
    assert "2 new staging files" in done.stdout
    assert "1 more left on origin" in done.stderr and "extract.max_staging" in done.stderr
    assert len(b.staged()) == 2
    (b.root / "memcli.toml").write_text(config.replace("[extract]\n", "[extract]\nmax_staging = 3\n"),
                                        encoding="utf-8")  # room for one more (as after a consolidation)
    done = b.memcli("staging", "pull")
    _ok(done)
    assert "1 new staging files" in done.stdout and "(2 already here)" in done.stdout
    assert "left on" not in done.stderr and b.staged() == {"one", "two", "three"}
    assert published(remote) == {"a": {"one", "two", "three"}}  # nothing was taken off the remote


def test_outside_git_is_a_usage_error(tmp_path: Path) -> None:
    import subprocess
    import sys

    (tmp_path / "memory").mkdir()
    done = subprocess.run([sys.executable, "-m", "memcli", "staging", "pull", "-w", str(tmp_path)],
                          capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert done.returncode == 2 and "not inside a git repository" in done.stderr


def test_ci_clears_only_after_its_pull_request_is_pushed(tmp_path: Path, fake_llm) -> None:
    """`consolidate --keep-published` then `staging clear`: the items stay published until the
    commit that used them is safe on the remote; a clear that finds them gone exits 4."""
    fake_llm.responder = worker
    remote, team = make_team(tmp_path, "a", "ci", "dev")
    a, ci, dev = team["a"], team["ci"], team["dev"]
    _stage(a, "x1", "x2")
    _ok(a.memcli("staging", "push", "--name", "a"))
    _ok(ci.memcli("staging", "pull"))
    _ok(ci.memcli("consolidate", "--keep-published"))
    assert published(remote) == {"a": {"x1", "x2"}}
    _ok(ci.memcli("staging", "pull", "--workspace", str(ci.root)))
    assert ci.staged() == set()  # used here: never pulled again, even while still published
    _ok(ci.git("push", "-q", "origin", "HEAD:refs/heads/memcli/nightly"))
    done = ci.memcli("staging", "clear")
    _ok(done)
    assert "removed 2" in done.stdout and published(remote) == {}
    assert "nothing to remove" in ci.memcli("staging", "clear").stdout

    _stage(a, "y1")
    _ok(a.memcli("staging", "push", "--name", "a"))
    for clone in (ci, dev):
        _ok(clone.memcli("staging", "pull"))
    _ok(ci.memcli("consolidate", "--keep-published"))
    _ok(dev.memcli("consolidate"))  # a developer used the same item first and cleared it
    raced = ci.memcli("staging", "clear")
    assert raced.returncode == 4 and "another consolidation already used 1" in raced.stderr


def test_a_removal_that_cannot_reach_the_remote_stays_pending(tmp_path: Path, fake_llm) -> None:
    fake_llm.responder = worker
    remote, team = make_team(tmp_path, "a", "ci")
    a, ci = team["a"], team["ci"]
    _stage(a, "z1")
    _ok(a.memcli("staging", "push", "--name", "a"))
    _ok(ci.memcli("staging", "pull"))
    away = remote.rename(tmp_path / "unreachable.git")
    done = ci.memcli("consolidate")
    assert done.returncode == 1 and "stay pending" in done.stderr and "staging clear" in done.stderr
    assert ci.git("log", "-1", "--format=%B").stdout.count("Memcli-Run") == 1  # the commit is made
    away.rename(remote)
    _ok(ci.memcli("staging", "pull"))
    assert ci.staged() == set()  # used here: not brought back while its removal is pending
    assert published(remote) == {"a": {"z1"}}
    done = ci.memcli("staging", "clear")
    _ok(done)
    assert "removed 1" in done.stdout and published(remote) == {}
