"""Code drift on a temp git repository: a deleted file, a renamed file, and paths that never drifted."""

from __future__ import annotations

from pathlib import Path

import pytest

from memcli.gc.drift import GitUnavailable, drift_candidates, mentions
from memcli.lint.snapshot import Snapshot
from memcli.workspace import Workspace


def _records(root: Path) -> list:
    snap = Snapshot(Workspace.open(root))
    return [snap.record(p) for by_slug in snap.slugs.values() for p in by_slug.values()]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("see `src/app.py` first", ["src/app.py"]),
        ("edit src/pkg/mod.py:12 then", ["src/pkg/mod.py"]),
        ("`./tools/run.sh#L3-L9`", ["tools/run.sh"]),
        ("`README.md` and `pyproject.toml`", ["README.md", "pyproject.toml"]),
        ("https://example.com/src/app.py and `http://x.io/a.py`", []),
        ("`/etc/hosts`, `~/notes.md`, `*.db-wal`, `../up.py`, `$HOME/x.py`", []),
        ("`pytest -q`, `use-sqlite`, `v1.2.3`, `os.path`", ["os.path"]),  # os.path: filtered by git history
        ("日本語の説明 `docs/設計.md` を参照。", ["docs/設計.md"]),
        ("[guide](docs/guide.md).", ["docs/guide.md"]),
    ],
)
def test_mentions(text: str, expected: list[str]) -> None:
    assert sorted(m.path for m in mentions(text)) == sorted(expected)


def test_mentions_carry_the_line() -> None:
    (m,) = mentions("---\na: b\n---\nfirst\nthen `lib/x.py`\n")
    assert (m.path, m.line) == ("lib/x.py", 5)


def test_deleted_and_renamed_files(ws_root: Path, b) -> None:
    b.git_init(ws_root)
    for name in ("gone.py", "moved.py", "keep.py", "twice.py"):
        (ws_root / "src").mkdir(exist_ok=True)
        (ws_root / "src" / name).write_text(f"# {name}\n" + "x = 1\n" * 20)
    b.decision(ws_root, "uses-code", "Jobs live in `src/gone.py`; parsing in src/moved.py:40; "
               "`src/keep.py` stays; the database is `data/app.db`; see https://host/src/gone.py.")
    b.request(ws_root, "renamed-twice", "Entry point: `src/twice.py`.")
    b.commit_all(ws_root, "code and records")
    b.git(ws_root, "rm", "-q", "src/gone.py")
    b.git(ws_root, "mv", "src/moved.py", "src/parsing.py")
    b.git(ws_root, "mv", "src/twice.py", "src/middle.py")
    b.commit_all(ws_root, "reshape")
    (ws_root / "lib").mkdir()
    b.git(ws_root, "mv", "src/middle.py", "lib/entry.py")
    b.commit_all(ws_root, "move again")

    found = drift_candidates(ws_root, _records(ws_root))
    by_path = {c.evidence["path"]: c for c in found}
    assert sorted(by_path) == ["src/gone.py", "src/moved.py", "src/twice.py"]
    assert by_path["src/gone.py"].evidence["status"] == "deleted"
    assert by_path["src/gone.py"].paths == ("memory/decisions/uses-code.md",)
    assert by_path["src/moved.py"].evidence["status"] == "renamed"
    assert by_path["src/moved.py"].evidence["new_path"] == "src/parsing.py"
    assert "src/parsing.py" in by_path["src/moved.py"].reason
    assert by_path["src/twice.py"].evidence["new_path"] == "lib/entry.py"  # the chain is followed


def test_workspace_in_a_subfolder_reads_paths_from_there(tmp_path: Path, b) -> None:
    repo = tmp_path / "repo"
    b.git_init(repo)
    ws = repo / "service"
    (ws / "tools").mkdir(parents=True)
    (ws / "tools" / "seed.py").write_text("print(1)\n")
    b.knowledge(ws, "seeding", "Seed with `tools/seed.py`.", invoked=True)
    b.commit_all(repo, "add")
    b.git(repo, "rm", "-q", "service/tools/seed.py")
    b.commit_all(repo, "drop")
    (c,) = drift_candidates(ws, _records(ws))
    assert c.evidence["path"] == "tools/seed.py" and c.evidence["status"] == "deleted"


def test_recreated_file_is_not_drift(ws_root: Path, b) -> None:
    b.git_init(ws_root)
    (ws_root / "app.py").write_text("a\n")
    b.request(ws_root, "mentions-app", "Run `app.py`.")
    b.commit_all(ws_root, "one")
    b.git(ws_root, "rm", "-q", "app.py")
    b.commit_all(ws_root, "two")
    (ws_root / "app.py").write_text("b\n")
    b.commit_all(ws_root, "three")
    assert drift_candidates(ws_root, _records(ws_root)) == []


def test_not_a_git_repository(ws_root: Path, b) -> None:
    b.request(ws_root, "mentions-app", "Run `app.py`.")
    with pytest.raises(GitUnavailable):
        drift_candidates(ws_root, _records(ws_root))
