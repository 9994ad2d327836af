"""`memcli eval` as users run it: the summary, JSON, --since, --path, bad input, and what it imports."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from support.cli import run
from support.eval_workspace import History, request

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts"


@pytest.fixture
def ws(history: History) -> History:
    history.session("a", "2026-01-02", ["Fix the login bug. Use pnpm instead of npm.", "thanks"])
    history.commit("2026-01-03T00:00:00Z", {"memory/requests/use-pnpm.md": request("Use pnpm, not npm.")})
    history.session("b", "2026-01-05", ["Add a CSV export.", "npmじゃなくてpnpmを使って。"])
    history.session("c", "2026-01-06", ["Always write the tests with pytest.", "continue"])
    history.session("d", "2026-01-08", ["テストは必ずpytestで書いて。"])
    return history


def test_summary_and_the_uncovered_list(ws: History, capsys) -> None:
    code, out, err = run(capsys, "eval", "--path", str(ws.folder), "-w", str(ws.root))
    assert code == 0 and err == ""
    assert "memcli eval: 4 sessions" in out
    assert "Repeated instructions: 2, said again in 2 later sessions" in out
    assert "covered at the time:  1 of 2 repeats" in out
    assert "reached the agent:    0 of 2 repeats" in out
    assert "covered now:          1 of 2" in out
    uncovered = out.split("Not in the memory now (1):", 1)[1]
    assert "pytest" in uncovered and "[c:0, d:0]" in uncovered and "pnpm" not in uncovered
    assert "memcli eval --stage" in out


def test_json(ws: History, capsys) -> None:
    code, out, _ = run(capsys, "eval", "--path", str(ws.folder), "-w", str(ws.root), "--json")
    doc = json.loads(out)
    assert code == 0 and doc["schema"] == "memcli.eval" and doc["version"] == 1
    assert doc["sessions"] == 4 and doc["summary"] == {
        "repeated": 2, "repeats": 2, "covered_at_time": 1, "unknown_at_time": 0, "reached": 0,
        "covered_now": 1, "uncovered": 1}
    pnpm = next(r for r in doc["repetitions"] if r["covered_now"])
    assert pnpm["covered_by"] == ["memory/requests/use-pnpm.md"]
    assert [(o["session_id"], o["range"]) for o in pnpm["occurrences"]] == [("a", [0, 0]), ("b", [2, 2])]
    assert pnpm["repeats"][0]["held_before"] is True and pnpm["repeats"][0]["commit"]
    assert doc["uncovered"] == [r["id"] for r in doc["repetitions"] if not r["covered_now"]]
    assert "staged" not in doc


def test_since_keeps_the_recent_sessions(ws: History, capsys) -> None:
    _, out, _ = run(capsys, "eval", "--path", str(ws.folder), "-w", str(ws.root), "--since", "2026-01-04",
                    "--json")
    doc = json.loads(out)
    assert doc["sessions"] == 3  # "a" ended before
    assert [r["text"] for r in doc["repetitions"]] == ["テストは必ずpytestで書いて。"]


def test_outside_a_workspace_with_paths_the_memory_is_not_checked(ws: History, tmp_path, capsys,
                                                                     monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(capsys, "eval", "--path", str(ws.folder), "--json")
    doc = json.loads(out)
    assert code == 0 and doc["summary"]["repeated"] == 2 and doc["summary"]["covered_now"] == 0
    assert doc["notes"] == ["no workspace: the memory was not checked"]


def test_no_git_history_is_unknown_not_false(tmp_path, capsys) -> None:
    h = History.__new__(History)  # sessions and a workspace, no repository
    h.folder, h.root = tmp_path / "sessions", tmp_path / "ws"
    h.folder.mkdir()
    (h.root / "memory").mkdir(parents=True)
    History.session(h, "a", "2026-01-02", ["Use pnpm instead of npm."])
    History.session(h, "b", "2026-01-05", ["Please use pnpm, not npm."])
    _, out, _ = run(capsys, "eval", "--path", str(h.folder), "-w", str(h.root), "--json")
    doc = json.loads(out)
    assert doc["summary"]["unknown_at_time"] == 1 and doc["summary"]["covered_at_time"] == 0
    assert doc["repetitions"][0]["repeats"][0]["held_before"] is None
    assert any("not a git repository" in n for n in doc["notes"])


def test_the_real_transcripts_of_every_agent(tmp_path, capsys) -> None:
    (tmp_path / "memory").mkdir()
    code, out, _ = run(capsys, "eval", "--path", str(FIXTURES), "-w", str(tmp_path), "--json")
    doc = json.loads(out)
    assert code == 0 and doc["sessions"] >= 20
    # Gemini CLI and Codex sessions both open with the user typing "show tools", a one-off ask, not a
    # rule; the Gemini CLI and Copilot CLI and Pi e2e sessions were given the same request to keep a
    # rule (a Pi /fork's copy of its parent's prompts is no repetition)
    found = {rep["text"]: {o["agent"] for o in rep["occurrences"]} for rep in doc["repetitions"]}
    rule = "And from now on we lint with ruff, please keep that."
    assert found == {rule: {"gemini-cli", "copilot-cli", "pi"}}


@pytest.mark.parametrize(("argv", "code", "message"), [
    (["--since", "yesterday"], 2, "--since 'yesterday'"),
    (["--path", "/no/such/transcripts"], 1, "no such file or folder"),
    (["-w", "/no/such/workspace"], 2, "is not a directory"),
    (["--stage", "--path", "{sessions}", "-w", "{nowhere}"], 2, "is not a directory"),
    (["--bogus"], 2, "No such option"),
])
def test_bad_input_is_one_line(ws: History, capsys, argv: list[str], code: int, message: str) -> None:
    argv = [a.format(sessions=ws.folder, nowhere=ws.root / "missing") for a in argv]
    got, out, err = run(capsys, "eval", *argv, *([] if "-w" in argv else ["-w", str(ws.root)]))
    assert got == code and message in err and "Traceback" not in err + out
    assert len([line for line in err.splitlines() if line.strip()]) <= 3  # click's usage block for --bogus


def test_stage_needs_a_workspace(ws: History, tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys, "eval", "--path", str(ws.folder), "--stage")
    assert code == 2 and err.startswith("Error: --stage writes to a workspace") and len(err.splitlines()) == 1


def test_no_workspace_and_no_paths(tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys, "eval")
    assert code == 2 and err.startswith("Error: no memcli workspace here") and len(err.splitlines()) == 1


def test_corrupt_transcript_lines_are_skipped(ws: History, capsys) -> None:
    with (ws.folder / "c.jsonl").open("a", encoding="utf-8") as fh:
        fh.write('{"role": "user", "content": \n\x00garbage\n')
    (ws.folder / "empty.jsonl").write_text("", encoding="utf-8")
    code, out, err = run(capsys, "eval", "--path", str(ws.folder), "-w", str(ws.root), "--json")
    assert code == 0 and json.loads(out)["summary"]["repeated"] == 2


PROBE = """
import sys
from memcli.cli import main
try:
    main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code
print("HEAVY:" + ",".join(sorted(m for m in sys.modules if m.split(".")[0] in ("litellm", "openai"))),
      file=sys.stderr)
sys.exit(code)
"""


def test_no_model_configured_imports_no_litellm(ws: History) -> None:
    ws.commit("2026-01-20T00:00:00Z", {"knowledge/pytest.md": "---\ncreated_at: 2026-01-01T00:00:00Z\n"
              "updated_at: 2026-01-01T00:00:00Z\nkind: rule\ndescription: Tests use pytest\n"
              "model_invocation: true\nuser_invocable: true\nlast_sources: []\n---\nAlways pytest.\n"})
    ws.session("e", "2026-01-25", ["Write the tests with pytest please."])  # context and search both run
    proc = subprocess.run([sys.executable, "-c", PROBE, "eval", "--path", str(ws.folder), "-w", str(ws.root)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "reached the agent:    1 of 3 repeats" in proc.stdout
    assert "HEAVY:\n" in proc.stderr, proc.stderr.splitlines()[-1]


def test_discovers_this_workspaces_sessions(history: History, tmp_path, capsys, monkeypatch) -> None:
    from support.claude_transcript import assistant_text, user, write_session

    home = tmp_path / "claude"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home))
    said_in = {"11111111-1111-4111-8111-111111111111": "Always run `make test` before you commit.",
               "22222222-2222-4222-8222-222222222222": "コミットする前に必ず`make test`を実行して。"}
    for sid, said in said_in.items():
        write_session(home, history.root, [("user", user(said)), ("assistant", assistant_text("OK.", "m1"))],
                      session=sid)
    code, out, _ = run(capsys, "eval", "-w", str(history.root), "--json")
    doc = json.loads(out)
    assert code == 0 and doc["sessions"] == 2 and doc["summary"]["repeated"] == 1
    assert {o["agent"] for o in doc["repetitions"][0]["occurrences"]} == {"claude-code"}
