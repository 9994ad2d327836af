"""What a write killed before its rename leaves, and that memcli.atomicio can name it."""

from __future__ import annotations

from pathlib import Path

from support.killed import killed_write

from memcli.atomicio import atomic_write_bytes, left_by, leftover_of


def test_the_temp_file_of_a_killed_write_is_named_by_leftover_of(tmp_path: Path) -> None:
    target = tmp_path / ".memcli-skill"
    target.write_bytes(b"old bytes")
    killed_write(target, "new bytes")
    left = sorted(p.name for p in tmp_path.iterdir() if p != target)
    assert len(left) == 1 and target.read_bytes() == b"old bytes"
    assert leftover_of(left[0], ".memcli-skill") and left_by(left[0]) == ".memcli-skill"
    assert not leftover_of(left[0], "memcli-skill") and not leftover_of(left[0], ".memcli-skil")


def test_other_names_are_not_leftovers(tmp_path: Path) -> None:
    atomic_write_bytes(tmp_path / "SKILL.md", b"x")
    assert [p.name for p in tmp_path.iterdir()] == ["SKILL.md"]
    for name in (".SKILL.md.tmp", ".SKILL.md.abcdefg.tmp", ".SKILL.md.abcdefghi.tmp",
                 ".SKILL.md.ABCDEFGH.tmp", "SKILL.md.abcdefgh.tmp", ".SKILL.md.abcdefgh.txt",
                 ".SKILL.md.abc/efgh.tmp"):
        assert not leftover_of(name, "SKILL.md") and left_by(name) is None, name
    assert leftover_of(".SKILL.md.ab_d3fgh.tmp", "SKILL.md")
    assert left_by(".SKILL.md.ab_d3fgh.tmp") == "SKILL.md"
    assert left_by("..abcdefgh.tmp") is None  # no name before the random part
