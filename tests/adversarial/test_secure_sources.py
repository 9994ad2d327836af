"""A document Source names only a file `memcli import` read, inside the workspace (or the agent's
memory folder): `memcli_source` over MCP and `memcli source` on the CLI never read anything else,
whatever the id says (issue #42, item 1)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from imports.helpers import World, echo_blocks, make_world
from support.cli import run as cli
from support.fake_llm import FakeLLM

from memcli.imports.run import run as import_run

NETRC_PASSWORD = "n3trc-Passw0rd-never-shown"
ENV_VALUE = "DOTENV-VALUE-never-shown"


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> World:
    found = make_world(tmp_path, monkeypatch)
    home = tmp_path / "home"
    home.mkdir()
    netrc = f"machine example.com login bob password {NETRC_PASSWORD}\n"
    (home / ".netrc").write_text(netrc, encoding="utf-8")
    monkeypatch.setenv("HOME", str(home))
    (found.root / ".env").write_text(f"TOKEN={ENV_VALUE}\n", encoding="utf-8")
    (found.root / "README.md").write_text("# Bakery\n\nA workspace file no import read.\n", encoding="utf-8")
    outside = tmp_path / "outside.md"
    outside.write_text(f"- outside the workspace {ENV_VALUE}\n", encoding="utf-8")
    (found.root / "docs").mkdir(exist_ok=True)
    os.symlink(outside, found.root / "docs" / "linked.md")  # a link inside that leads out
    return found


REFUSED = [
    "markdown//etc/passwd",
    "markdown/~/.netrc",
    "agents-md/../../../../etc/hostname",
    "markdown/../../../../etc/hostname",
    "markdown/.env",
    "markdown/.git/config",
    "markdown/README.md",  # in the workspace, but never imported
    "markdown/docs/linked.md",  # a symlink out of the workspace
    "claude-md/..\\..\\etc\\hostname",
]
LEAKS = ("root:", NETRC_PASSWORD, ENV_VALUE, "[core]", "repositoryformatversion", "A workspace file")


@pytest.mark.parametrize("source", REFUSED)
def test_cli_source_refuses_a_document_id_that_names_no_imported_file(
        world: World, capsys: pytest.CaptureFixture[str], source: str) -> None:
    code, out, err = cli(capsys, "source", f"{source}:1-3", "-w", str(world.root))
    assert code == 2, (code, out, err)
    assert err.startswith("Error: ") and err.count("\n") == 1
    assert not any(leak in out + err for leak in LEAKS)


def test_mcp_source_refuses_them_and_shows_an_imported_file(world: World, fake_llm: FakeLLM) -> None:
    import anyio
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    fake_llm.responder = echo_blocks
    assert import_run(world.ws, kind="agents-md") == 0  # the one document this machine imported
    params = StdioServerParameters(command=sys.executable, args=["-m", "memcli", "mcp"], cwd=str(world.root),
                                   env=dict(os.environ))

    async def calls() -> list[tuple[bool, str]]:
        out = []
        with open(os.devnull, "w") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write):
                async with ClientSession(read, write) as client:
                    await client.initialize()
                    for source in [*REFUSED, "agents-md/AGENTS.md"]:
                        done = await client.call_tool("memcli_source", {"session": source, "start": 15,
                                                                        "end": 16})
                        text = "\n".join(c.text for c in done.content if c.type == "text")
                        out.append((done.is_error, text))
        return out

    answers = anyio.run(calls)
    for source, (error, text) in zip(REFUSED, answers, strict=False):
        assert error, (source, text)
        assert not any(leak in text for leak in LEAKS), (source, text)
    error, text = answers[-1]
    assert not error and "session agents-md/AGENTS.md (agents-md)" in text and "コミットメッセージ" in text


def test_an_imported_file_swapped_for_a_link_out_is_refused(
        world: World, fake_llm: FakeLLM, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    fake_llm.responder = echo_blocks
    assert import_run(world.ws, kind="agents-md") == 0
    code, out, err = cli(capsys, "source", "agents-md/AGENTS.md:15-16", "-w", str(world.root))
    assert code == 0, (out, err)
    agents = world.root / "AGENTS.md"
    agents.unlink()
    os.symlink(tmp_path / "home" / ".netrc", agents)  # the ledger's path now leads out
    code, out, err = cli(capsys, "source", "agents-md/AGENTS.md:15-16", "-w", str(world.root))
    assert code == 2 and NETRC_PASSWORD not in out + err
