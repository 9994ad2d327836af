"""The marshal files earlier versions kept the Linter's results and gc-report's facts in (in the
state folder, beside the store) are never read again: the first save into the store removes each
reader's own old file, and nothing else in the state folder."""

from __future__ import annotations

import os
from pathlib import Path

from support.cli import run

from memcli.gc.facts import LEGACY_FILE as GC_FILE
from memcli.lint.cache import LEGACY_FILE as LINT_FILE

NOT_OURS = ("lint-cache.marshal.bak", "notes.marshal", "gc-facts.marshal.d/keep",
            "tokenizer-0123456789ab-py311.marshal")


def test_each_reader_removes_its_old_cache_file_at_its_first_save(example_ws: Path, capsys) -> None:
    state = Path(os.environ["MEMCLI_STATE_DIR"])
    for name in (LINT_FILE, GC_FILE, *NOT_OURS):
        (state / name).parent.mkdir(parents=True, exist_ok=True)
        (state / name).write_bytes(b"\xe3\x01old marshal")
    assert (LINT_FILE, GC_FILE) == ("lint-cache.marshal", "gc-facts.marshal")  # the names they had

    assert run(capsys, "lint", "-w", str(example_ws))[0] == 0
    assert not (state / LINT_FILE).exists() and (state / GC_FILE).exists()
    assert run(capsys, "gc-report", "-w", str(example_ws))[0] == 0
    assert not (state / GC_FILE).exists()
    assert all((state / name).read_bytes() == b"\xe3\x01old marshal" for name in NOT_OURS)
    assert run(capsys, "lint", "-w", str(example_ws))[0] == 0  # none left to remove: no error


def test_a_folder_of_that_name_is_left_alone(example_ws: Path, capsys) -> None:
    folder = Path(os.environ["MEMCLI_STATE_DIR"]) / LINT_FILE
    (folder / "inside").mkdir(parents=True)
    assert run(capsys, "lint", "-w", str(example_ws))[0] == 0
    assert (folder / "inside").is_dir()
