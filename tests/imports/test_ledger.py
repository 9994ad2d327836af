"""The import ledger: blocks known by what they say, and a killed run's chunk finished or undone."""

from __future__ import annotations

from pathlib import Path

from imports.helpers import World, echo_blocks, staged

from memcli.agents.documents.ledger import LEDGER, Ledger, fingerprint
from memcli.imports.run import recover, run
from memcli.staging import staging_path


def test_a_fingerprint_is_the_text_in_its_kind_and_scope() -> None:
    base = fingerprint("cursor-rules", "always applied", "- Never use `any`.")
    assert fingerprint("cursor-rules", "always applied", "-  Never use\n  `any`.  ") == base  # re-wrapped
    assert fingerprint("cursor-rules", "applies to files matching *.ts", "- Never use `any`.") != base
    assert fingerprint("windsurf-rules", "always applied", "- Never use `any`.") != base
    assert fingerprint("cursor-rules", "always applied", "- Never use `unknown`.") != base


def test_a_torn_last_line_is_ignored(tmp_path: Path) -> None:
    ledger = Ledger.open(tmp_path)
    first = ledger.begin("agents-md/AGENTS.md", tmp_path / "AGENTS.md", [(1, 1, "aa")], [], "v", "m")
    ledger.finish(first)
    with (tmp_path / LEDGER).open("a", encoding="utf-8") as fh:
        fh.write('{"op": "pending", "id": "x", "source": "agents-md/AGENTS.md", "blo')
    again = Ledger.open(tmp_path)
    assert again.imported("agents-md/AGENTS.md") == {"aa"} and again.unfinished() == []


def _killed_after_writing(world: World, lose: int = 0) -> list[Path]:
    """A run killed after its chunks' staging files were written, before any chunk was marked
    done (`lose` of the root AGENTS.md's files never written): what the ledger and staging hold."""
    path = world.ws.state_dir / LEDGER
    lines = path.read_text(encoding="utf-8").splitlines()
    path.write_text("\n".join(line for line in lines if '"op": "done"' not in line) + "\n", encoding="utf-8")
    ours = [f.id for f in staged(world.root) if f.source.session_id == "agents-md/AGENTS.md"]
    for lost in ours[:lose]:
        staging_path(world.root / "memory/_staging", lost).unlink()
    return sorted((world.root / "memory/_staging").glob("*.json"))


def test_a_chunk_written_whole_is_finished_without_the_model(world: World, fake_llm) -> None:
    fake_llm.responder = echo_blocks
    assert run(world.ws, kind="agents-md") == 0
    files = _killed_after_writing(world)
    calls = fake_llm.calls
    assert run(world.ws, kind="agents-md") == 0
    assert fake_llm.calls == calls  # nothing asked again
    assert sorted((world.root / "memory/_staging").glob("*.json")) == files
    assert Ledger.open(world.ws.state_dir).unfinished() == []


def test_a_chunk_written_in_part_is_undone_and_imported_again(world: World, fake_llm) -> None:
    fake_llm.responder = echo_blocks
    assert run(world.ws, kind="agents-md") == 0
    before = {f.id: f.source for f in staged(world.root)}
    _killed_after_writing(world, lose=5)  # the root AGENTS.md's chunk wrote one of its six files
    ledger = Ledger.open(world.ws.state_dir)
    staging = world.root / "memory/_staging"
    half = [c for c in ledger.unfinished() if not all(staging_path(staging, s).is_file() for s in c.staging)]
    assert len(half) == 1
    assert recover(ledger, staging) == 1  # the other chunk was whole
    assert not any(staging_path(staging, s).is_file() for s in half[0].staging)
    calls = fake_llm.calls
    assert run(world.ws, kind="agents-md") == 0
    assert fake_llm.calls == calls + 1  # only the undone chunk is asked again
    assert {f.id: f.source for f in staged(world.root)} == before  # the same files, none twice
