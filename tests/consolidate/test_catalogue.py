"""The one-line catalogue of a record, for an input that cannot hold every record in full."""

from __future__ import annotations

import pytest

from memcli.consolidate.related import catalogue_line
from memcli.workspace import Workspace

D = "memory/decisions/use-sqlite.md"


@pytest.mark.parametrize("status", ["replaced", '"replaced"', "'replaced'", "replaced  # by postgres"])
def test_status_is_read_plain_or_quoted(tmp_path, status):
    (tmp_path / "memcli.toml").write_text("", encoding="utf-8")
    (tmp_path / "memory/decisions").mkdir(parents=True)
    (tmp_path / D).write_text(f"---\nstatus: {status}\n---\n\n# Use SQLite\n\nOne file.\n", encoding="utf-8")
    assert catalogue_line(Workspace.open(tmp_path), D) == f"- {D} [replaced] Use SQLite\n"


def test_a_file_without_frontmatter_is_listed_by_its_first_line(tmp_path):
    (tmp_path / "memcli.toml").write_text("", encoding="utf-8")
    (tmp_path / "memory/decisions").mkdir(parents=True)
    (tmp_path / D).write_text("SQLite, one file.\n", encoding="utf-8")
    assert catalogue_line(Workspace.open(tmp_path), D) == f"- {D} SQLite, one file.\n"
