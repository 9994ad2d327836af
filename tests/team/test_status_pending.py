"""`memcli status` shows the shared-staging items whose removal from their refs is pending, and the
command that removes them (real git, a bare remote, real processes)."""

from __future__ import annotations

import json
from pathlib import Path

from consolidate.helpers import write_staging
from team.kit import make_team, published, worker

from memcli.team.state import STATE_FILE

ITEMS = {"decisions": [{"title": "Review", "decision": "Review agent output", "rationale": "safety"}]}
LINE = "shared staging:     2 used items still published, their removal from the shared refs pending; " \
       "`memcli staging clear` removes them"


def _ok(done) -> None:
    assert done.returncode == 0, done.stdout + done.stderr


def _status(clone) -> tuple[int, str, dict]:
    text, raw = clone.memcli("status"), clone.memcli("status", "--json")
    assert text.returncode == raw.returncode, text.stderr + raw.stderr
    return text.returncode, text.stdout, json.loads(raw.stdout)


def test_status_shows_pending_removals_until_cleared(tmp_path: Path, fake_llm) -> None:
    fake_llm.responder = worker
    remote, team = make_team(tmp_path, "a", "ci")
    a, ci = team["a"], team["ci"]
    for n, sid in enumerate(("x1", "x2")):
        write_staging(a.root, sid, f"session-{sid}", (n, n + 2), ITEMS)
    _ok(a.memcli("staging", "push", "--name", "a"))
    _ok(ci.memcli("staging", "pull"))
    code, text, data = _status(ci)
    assert code == 0 and "shared staging:" not in text  # pulled, not used yet: nothing pending
    assert data["shared_staging_pending"] == {"count": 0, "ids": [], "retry": None}

    _ok(ci.memcli("consolidate", "--keep-published"))
    assert published(remote) == {"a": {"x1", "x2"}}
    code, text, data = _status(ci)
    assert code == 0  # an ordinary step of the CI flow, not a failure
    assert LINE in text
    pending = data["shared_staging_pending"]
    assert sorted(pending["ids"]) == ["x1", "x2"] and pending["count"] == 2
    assert pending["retry"] == "memcli staging clear"
    assert "shared staging:" not in a.memcli("status").stdout  # the publisher has nothing pending

    _ok(ci.memcli("staging", "clear"))
    assert published(remote) == {}
    code, text, data = _status(ci)
    assert code == 0 and "shared staging:" not in text
    assert data["shared_staging_pending"]["count"] == 0


def test_status_after_a_removal_that_could_not_reach_the_remote(tmp_path: Path, fake_llm) -> None:
    fake_llm.responder = worker
    remote, team = make_team(tmp_path, "a", "ci")
    a, ci = team["a"], team["ci"]
    write_staging(a.root, "z1", "session-z1", (0, 2), ITEMS)
    _ok(a.memcli("staging", "push", "--name", "a"))
    _ok(ci.memcli("staging", "pull"))
    away = remote.rename(tmp_path / "unreachable.git")
    assert ci.memcli("consolidate").returncode == 1
    _, text, data = _status(ci)
    assert "shared staging:     1 used items still published" in text and "`memcli staging clear`" in text
    assert data["shared_staging_pending"] == {"count": 1, "ids": ["z1"], "retry": "memcli staging clear"}
    away.rename(remote)
    _ok(ci.memcli("staging", "clear"))
    assert _status(ci)[2]["shared_staging_pending"]["count"] == 0


def test_a_hand_edited_state_file_is_no_crash(tmp_path: Path) -> None:
    _, team = make_team(tmp_path, "ci")
    ci = team["ci"]
    ci.state.mkdir(parents=True, exist_ok=True)
    (ci.state / STATE_FILE).write_text(json.dumps({"pending": 3, "pulled": []}), encoding="utf-8")
    done = ci.memcli("status", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["shared_staging_pending"]["count"] == 0
