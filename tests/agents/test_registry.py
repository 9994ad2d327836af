"""memcli/agents/registry.py is the single source of what memcli knows about agents: every agent has
the parts it declares, they agree with its declaration, the CLI takes its `--agent` names from it,
and an agent registered there alone is discovered, read and wired with no other module touched."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.cli import run
from support.transcripts import FIX

from memcli.agents import base, registry
from memcli.agents.parts import Discovery, Parts, Reader, Wiring
from memcli.agents.targets import MCP_TOOLS, SERVER_NAME, SESSION_START, ConfigFile, hook, mcp_server
from memcli.agents.targets import session_start_command as start_command
from memcli.extract.remember import is_remember
from memcli.hooks import payload, start
from memcli.sessions import detect, read_session, scan, sessions_in
from memcli.transcript.base import json_objects
from memcli.transcript.model import Entry, ReadStats, SessionInfo

AGENTS = registry.AGENTS
NAMES = [a.NAME for a in AGENTS]


def _fixtures(name: str) -> list[Path]:
    """The transcripts among an agent's fixtures (beside them: Copilot's workspace.yaml, ...)."""
    agent = registry.get(name)
    looks = agent.load().discovery.is_transcript if agent is not None else lambda path: True
    return sorted(p for p in (FIX / name).rglob("*") if p.is_file() and p.name != "logs.json" and looks(p))


@pytest.fixture
def ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "ws"
    (root / "memory").mkdir(parents=True)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg-state"))
    for var in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME", "COPILOT_HOME"):
        monkeypatch.setenv(var, str(tmp_path / "no-home"))  # no real agent's sessions
    return root


# ---- every agent has the parts it declares -------------------------------------------------------

def test_names_and_options_are_unique() -> None:
    assert len(set(NAMES)) == len(NAMES) and all(a.TITLE for a in AGENTS)
    options = registry.options()
    assert len(set(options)) == len(options) and "all" not in options
    assert registry.get(registry.FALLBACK) is not None
    assert registry.by_option(registry.SESSION_START_DEFAULT) is not None


@pytest.mark.parametrize("agent", AGENTS, ids=NAMES)
def test_each_agent_has_each_part_it_declares(agent: base.Agent, tmp_path: Path) -> None:
    parts = agent.load()
    assert isinstance(parts, Parts) and isinstance(parts.reader, Reader)
    assert isinstance(parts.discovery, Discovery) and callable(parts.discovery.is_transcript)
    reader = parts.reader
    assert callable(reader.describe) and callable(reader.entries) and callable(reader.lines)
    assert reader.claim_file is not None or reader.claim_record is not None, "no way to claim a file"
    if agent.HOOKS is None:
        assert parts.wiring is None
        return
    hooks = agent.HOOKS
    assert hooks.session_start in base.FORMS
    assert isinstance(hooks.end_events, frozenset)
    assert isinstance(parts.wiring, Wiring)
    for scope, root in (("project", tmp_path), ("user", None)):
        files = parts.wiring.config_files(scope, root)
        assert files and all(isinstance(cf, ConfigFile) and cf.agent == hooks.option for cf in files)
        starts = [c for cf in files for e in cf.entries if e.marker == SESSION_START for c in e.commands()]
        # an agent extended by code (Pi's extension, OpenCode's plugin) runs the same command from the
        # file memcli writes whole
        modules = [e.value for cf in files if cf.fmt == "file" for e in cf.entries]
        starts += [start_command(hooks.option) for text in modules if start_command(hooks.option) in text]
        assert starts == [start_command(hooks.option)]
        assert isinstance(parts.wiring.install_notes(scope, root), list)
        assert isinstance(parts.wiring.states(scope, root), list)


@pytest.mark.parametrize("agent", [a for a in AGENTS if a.NAME != registry.FALLBACK], ids=lambda a: a.NAME)
def test_each_reader_claims_its_own_fixtures_and_names_them_as_declared(agent: base.Agent) -> None:
    found = _fixtures(agent.NAME)
    assert found, f"tests/fixtures/transcripts/{agent.NAME}/ holds no transcript of it"
    for path in found:
        assert detect(path)[0] is agent
        assert {info.agent for info in sessions_in(path)} == {agent.NAME}


def test_the_fallback_reads_its_own_format_and_any_file_nobody_claims(tmp_path: Path) -> None:
    fallback = registry.get(registry.FALLBACK)
    own = tmp_path / "run.jsonl"
    own.write_text('{"role": "user", "content": "hi"}\n', encoding="utf-8")
    unknown = tmp_path / "notes.jsonl"
    unknown.write_text('{"kind": "nothing any agent writes"}\n', encoding="utf-8")
    for path, entries in ((own, 1), (unknown, 0)):
        assert detect(path)[0] is fallback
        info = scan(sessions_in(path)[0])
        assert (info.agent, info.entries, info.skipped) == (registry.FALLBACK, entries, 1 - entries)


@pytest.mark.parametrize("path", [p for name in NAMES for p in _fixtures(name)], ids=lambda p: p.name[:24])
def test_no_two_readers_claim_the_same_file_or_record(path: Path) -> None:
    """The registry's order decides nothing: claims rest on markers only each agent's files carry."""
    head = path.read_bytes()[:64 * 1024]
    readers = [a.load().reader for a in AGENTS]
    whole = [r for r in readers if r.claim_file is not None and r.claim_file(path, head) is not None]
    assert len(whole) <= 1
    if whole:
        return
    for _index, obj in json_objects(path, ReadStats()):
        assert sum(1 for r in readers if r.claim_record is not None and r.claim_record(obj)) <= 1


def test_every_tool_name_form_is_read_as_a_remember_call() -> None:
    """memcli_remember calls are found in transcripts by their name: each agent's forms must match."""
    forms = [form for a in AGENTS for form in a.TOOL_NAMES]
    assert forms
    for form in forms:
        assert is_remember(form.format(server=SERVER_NAME, tool="memcli_remember")), form
        assert not is_remember(form.format(server=SERVER_NAME, tool="memcli_search")), form


@pytest.mark.parametrize("agent", [a for a in AGENTS if a.HOOKS is not None], ids=lambda a: a.NAME)
def test_allow_rules_name_the_tools_as_the_agent_does(agent: base.Agent, tmp_path: Path) -> None:
    wiring = agent.load().wiring
    assert wiring is not None
    rules = [e.value for cf in wiring.config_files("project", tmp_path) for e in cf.entries
             if e.path == ("permissions", "allow")]
    assert rules in ([], [agent.TOOL_NAMES[0].format(server=SERVER_NAME, tool=t) for t in MCP_TOOLS])


# ---- the CLI -----------------------------------------------------------------------------------

def test_the_cli_takes_its_agent_names_from_the_registry(ws: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "hooks", "install", "--help")
    named = f"{', '.join(registry.options())} or all (repeatable)."
    assert code == 0 and " ".join(named.split()) in " ".join(out.split())
    code, _, err = run(capsys, "hooks", "install", "--agent", "nope", "-w", str(ws))
    assert code == 2 and f"choose one of {', '.join(registry.options())} or all" in err
    for option in registry.options():
        code, out, _ = run(capsys, "hooks", "install", "--agent", option, "--dry-run", "-w", str(ws))
        assert code == 0 and "+++ " in out
    # an agent registered before the CLI is built is in its help, with nothing else changed
    probe = ("import sys, types\n"
             "from memcli.agents import base, registry\n"
             "registry.AGENTS += (types.SimpleNamespace(NAME='x', TITLE='X', TOOL_NAMES=(), load=None,\n"
             "                    HOOKS=base.Hooks('newcomer', base.JSON, frozenset())),)\n"
             "from memcli.cli import main\nmain(['hooks', 'status', '--help'])\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    names = f"{', '.join([*registry.options(), 'newcomer'])} or all (repeatable)."
    assert done.returncode == 0 and names in " ".join(done.stdout.split())  # (the help wraps at 80 columns)


# ---- an agent registered in the registry alone ---------------------------------------------------

def _fake_describe(path: Path, head: Any) -> list[SessionInfo]:
    return [SessionInfo("fake-agent", path.name.split(".")[0], path)]


def _fake_entries(info: SessionInfo, stats: ReadStats) -> Iterator[Entry]:
    for index, obj in json_objects(info.path, stats):
        yield Entry(index, "user" if obj["fake"] == "human" else "assistant", obj["said"])


def _fake_files(root: Path, config: Any, since: Any) -> list[Path]:
    return sorted((root.parent / "fake-home").glob("*.fake"))


def _fake_config(scope: str, root: Path | None) -> list[ConfigFile]:
    folder = root if scope == "project" and root is not None else Path(os.environ["HOME"])
    entries = (hook("SessionStart", start_command("fake"), SESSION_START, 5), mcp_server("mcpServers"))
    return [ConfigFile("fake", folder / ".fake" / "settings.json", "json", entries)]


FAKE_PARTS = Parts(
    Reader(_fake_describe, _fake_entries, claim_record=lambda obj: "fake" in obj),
    Discovery(is_transcript=lambda path: path.suffix == ".fake", files=_fake_files),
    Wiring(_fake_config, states=lambda scope, root: ["fake trusts memcli"]))
FAKE = types.SimpleNamespace(NAME="fake-agent", TITLE="Fake", TOOL_NAMES=("fake.{server}.{tool}",),
                             HOOKS=base.Hooks("fake", base.TEXT, frozenset({"FakeEnd"})),
                             load=lambda: FAKE_PARTS)


@pytest.fixture
def fake(ws: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(registry, "AGENTS", (*registry.AGENTS, FAKE))
    home = ws.parent / "fake-home"
    home.mkdir()
    lines = [{"fake": "human", "said": "keep the index in SQLite"}, {"fake": "bot", "said": "noted"}]
    (home / "s1.fake").write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return home / "s1.fake"


def test_a_registered_agent_is_discovered_and_read(fake: Path, ws: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "sessions", "-w", str(ws), "--json")
    assert code == 0
    assert [(s["agent"], s["session_id"], s["entries"]) for s in json.loads(out)] == [("fake-agent", "s1", 2)]
    code, out, _ = run(capsys, "source", "s1:0", "-w", str(ws), "--json")
    assert code == 0 and [e["text"] for e in json.loads(out)["entries"]] == ["keep the index in SQLite"]
    info, entries = read_session(fake)
    assert info.agent == "fake-agent" and [e.role for e in entries] == ["user", "assistant"]
    code, out, _ = run(capsys, "sessions", "--path", str(fake.parent), "--json")  # a folder given
    assert code == 0 and [s["path"] for s in json.loads(out)] == [str(fake)]


def test_a_registered_agent_is_wired_and_its_hooks_are_served(
        fake: Path, ws: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    code, out, err = run(capsys, "hooks", "install", "--agent", "fake", "-w", str(ws))
    assert code == 0, err
    settings = json.loads((ws / ".fake" / "settings.json").read_text(encoding="utf-8"))
    started = settings["hooks"]["SessionStart"][0]["hooks"][0]["command"]
    assert started == "memcli hooks session-start --agent fake"
    assert settings["mcpServers"]["memcli"] == {"command": "memcli", "args": ["mcp"]}
    code, out, _ = run(capsys, "hooks", "status", "--agent", "fake", "-w", str(ws), "--scope", "project")
    assert code == 0 and "fake trusts memcli" in out and "missing" not in out
    code, out, _ = run(capsys, "hooks", "install", "--agent", "all", "--dry-run", "-w", str(ws))
    assert code == 0 and str(ws / ".fake" / "settings.json") not in out  # installed already
    assert start.output_form("fake") == base.TEXT
    spawned: list[list[str]] = []
    monkeypatch.setattr("subprocess.Popen", lambda args, **kw: spawned.append(args))
    for event in ("FakeEnd", "Stop"):  # its session end, with no transcript written, starts no worker
        read, write = os.pipe()
        os.write(write, json.dumps({"session_id": "s1", "transcript_path": str(ws / "gone.jsonl"),
                                    "hook_event_name": event}).encode())
        os.close(write)
        with os.fdopen(read, "rb") as stream:
            assert payload.extract_hook(stream) == 0
    assert [args[args.index("--event") + 1] for args in spawned] == ["Stop"]
