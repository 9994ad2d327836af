"""Knowledge as Agent Skills (issue #29) with the real agents: after `memcli hooks install` (which
runs `memcli skills sync`) and each agent's one-time trust step, the knowledge record's skill is
listed in the agent's FIRST model request with its description, the resident context no longer
repeats it, and a scripted model that activates the skill the agent's own way gets its body:
Claude Code through its Skill tool, Codex by reading the SKILL.md (its listing gives the path),
Gemini CLI (headless, where its activate_skill tool is not offered) with read_file, GitHub Copilot
CLI through its skill tool, Pi with its read tool (its listing gives the path), OpenCode through its
skill tool.

With 200 knowledge records, each agent's first request is compared with what `memcli skills sync
--json` reports it lists: shortened, by name only, left out (docs/skills.md shows the figures).
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
from e2e.conftest import agent_binary, run, stop_capture_workers
from e2e.test_claude_code import accept_trust_dialog, claude_env, texts
from e2e.test_codex import KEY_VAR, codex_config, codex_exec, trust
from e2e.test_copilot import copilot_env
from e2e.test_copilot import trust_folder as trust_copilot_folder
from e2e.test_gemini import gemini_env, trust_folder, user_settings
from e2e.test_opencode import OpenCodeServer, opencode_run, user_config
from e2e.test_opencode import texts as opencode_texts
from e2e.test_pi import MODEL, pi_env, system_text, tool_results, user_setup
from support.agent_server import Request, Turn
from support.anthropic_server import AnthropicServer
from support.chat_completions_server import ChatCompletionsServer
from support.gemini_server import GeminiServer
from support.responses_server import ResponsesServer

SLUG = "restore-nightly-backup"
DESCRIPTION = "How to restore the nightly SQLite backup (pelican-restore procedure)"
BODY = "Stop the app, copy the newest `backup-*.db` from the NAS over `data/app.db`, start the app."
WORDS = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november".split()


def memcli(root: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    done = run(["memcli", *args], root, env, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def install(root: Path, env: dict[str, str], agent: str) -> None:
    out = memcli(root, env, "hooks", "install", "--agent", agent).stdout
    assert "skills: wrote 1, removed 0 (1 skill)" in out, out


# --- each agent, one session: listed, not repeated, activated --------------------------------


def claude_session(root: Path, env: dict[str, str], script: list[Turn]) -> list[dict[str, Any]]:
    claude = agent_binary("claude")
    accept_trust_dialog(Path(env["HOME"]), root)
    server = AnthropicServer()
    server.script(*script)
    with server:
        try:
            done = run([str(claude), "-p", "How do I restore last night's backup?"], root,
                       claude_env(env, server))
        finally:
            stop_capture_workers()
    assert done.returncode == 0, done.stderr[-3000:]
    return [r.body for r in server.model_requests()]


def claude_listing(body: dict[str, Any]) -> str:
    text = texts(body)
    return text.split("The following skills are available for use with the Skill tool:\n\n", 1)[1] \
        .split("</system-reminder>", 1)[0]


def test_claude_code_lists_the_skill_and_its_skill_tool_loads_the_body(project: Path,
                                                                      agent_env: dict[str, str]) -> None:
    install(project, agent_env, "claude-code")
    context = memcli(project, agent_env, "context", "--agent", "claude-code").stdout.strip()
    first, second = claude_session(project, agent_env, [Turn(tool="Skill", args={"skill": SLUG}),
                                                        Turn(text="Restore it from the NAS.")])
    assert f"- {SLUG}: {DESCRIPTION}\n" in claude_listing(first)
    assert context in texts(first) and f"- {SLUG} — " not in texts(first)  # the index does not repeat it
    assert "are your skills, not repeated here" in context
    assert BODY in texts(second)  # what its Skill tool sent back


def codex_session(root: Path, env: dict[str, str], script: list[Turn], *, sync: bool = False,
                  window: int | None = None) -> list[Any]:
    codex = agent_binary("codex")
    env = {**env, KEY_VAR: "sk-scripted"}
    home = Path(env["HOME"]) / ".codex"
    home.mkdir(parents=True, exist_ok=True)
    with ResponsesServer() as server:
        config = (f"model_context_window = {window}\n" if window else "") + codex_config(server.url)
        (home / "config.toml").write_text(config, encoding="utf-8")
        trust(codex, root, env, hooks=True)
        if sync:  # Codex has installed its own system skills by now: memcli counts them in its cap
            memcli(root, env, "skills", "sync")
        server.script(*script)
        try:
            codex_exec(codex, root, env, server, "how do I restore last night's backup?")
        finally:
            stop_capture_workers()
        return [r.body for r in server.model_requests()]


def codex_listing(body: dict[str, Any]) -> str:
    found = [part.get("text", "") for item in body["input"] if item.get("type") == "message"
             for part in item.get("content", []) if "<skills_instructions>" in part.get("text", "")]
    assert len(found) == 1, "no skills listing in Codex's request"
    return found[0]


def test_codex_lists_the_skill_and_the_model_reads_its_body(project: Path, agent_env: dict[str, str]) -> None:
    install(project, agent_env, "codex")
    context = memcli(project, agent_env, "context", "--agent", "codex").stdout.strip()
    read = Turn(tool="exec_command", args={"cmd": f"cat .agents/skills/{SLUG}/SKILL.md"})
    first, *_, last = codex_session(project, agent_env, [read, Turn(text="Restore it from the NAS.")])
    assert f"- {SLUG}: {DESCRIPTION} (file: " in codex_listing(first)
    said = "\n".join(part.get("text", "") for item in first["input"] if item.get("type") == "message"
                     for part in item.get("content", []))
    assert context in said and f"- {SLUG} — " not in said
    outputs = [item["output"] for item in last["input"] if item.get("type") == "function_call_output"]
    assert any(BODY in json.dumps(out, ensure_ascii=False).replace("\\n", "\n") for out in outputs), outputs


def gemini_session(root: Path, env: dict[str, str], script: list[Turn]) -> list[dict[str, Any]]:
    gemini = agent_binary("gemini")
    home = Path(env["HOME"])
    user_settings(home)
    trust_folder(home, root)
    server = GeminiServer()
    server.script(*script)
    with server:
        try:
            done = run([gemini, "-p", "How do I restore last night's backup?"], root, gemini_env(env, server),
                       timeout=120)
        finally:
            stop_capture_workers()
    assert done.returncode == 0, done.stderr[-3000:]
    return [r.body for r in server.model_requests()]


def gemini_system(body: dict[str, Any]) -> str:
    return "\n".join(p.get("text", "") for p in (body.get("systemInstruction") or {}).get("parts", []))


def test_gemini_cli_lists_the_skill_and_the_model_reads_its_body(project: Path,
                                                                 agent_env: dict[str, str]) -> None:
    install(project, agent_env, "gemini")
    path = project / ".agents/skills" / SLUG / "SKILL.md"
    first, second = gemini_session(project, agent_env, [Turn(tool="read_file", args={"file_path": str(path)}),
                                                        Turn(text="Restore it from the NAS.")])
    system = gemini_system(first)
    assert f"<name>{SLUG}</name>\n    <description>{DESCRIPTION}</description>" in system
    said = "\n".join(p.get("text", "") for c in first["contents"] for p in c.get("parts", []))
    assert "are your skills, not repeated here" in said and f"- {SLUG} — " not in said
    replies = [p["functionResponse"]["response"] for c in second["contents"] for p in c.get("parts", [])
               if "functionResponse" in p]
    assert any(BODY in r.get("output", "") for r in replies), replies


def copilot_session(root: Path, env: dict[str, str], script: list[Turn]) -> list[dict[str, Any]]:
    copilot = agent_binary("copilot")
    trust_copilot_folder(Path(env["HOME"]), root)
    server = ChatCompletionsServer()
    server.script(*script)
    with server:
        try:
            done = run([str(copilot), "-p", "How do I restore last night's backup?"], root,
                       copilot_env(env, server), timeout=120)
        finally:
            stop_capture_workers()
    assert done.returncode == 0, done.stderr[-3000:]
    return [r.body for r in server.model_requests()]


def copilot_listing(body: dict[str, Any]) -> str:
    system = "\n".join(m["content"] for m in body["messages"] if m["role"] == "system")
    return system.split("<available_skills>\n", 1)[1].split("</available_skills>", 1)[0]


def copilot_said(body: dict[str, Any]) -> str:
    return "\n".join(m["content"] for m in body["messages"] if isinstance(m.get("content"), str))


def test_copilot_cli_lists_the_skill_and_its_skill_tool_loads_the_body(project: Path,
                                                                      agent_env: dict[str, str]) -> None:
    install(project, agent_env, "copilot")
    assert (project / ".github/skills" / SLUG / "SKILL.md").is_file()
    context = memcli(project, agent_env, "context", "--agent", "copilot").stdout.strip()
    first, second = copilot_session(project, agent_env, [Turn(tool="skill", args={"skill": SLUG}),
                                                         Turn(text="Restore it from the NAS.")])
    assert f"<name>{SLUG}</name>\n  <description>{DESCRIPTION}</description>" in copilot_listing(first)
    said = copilot_said(first)
    assert context in said and f"- {SLUG} — " not in said  # the index does not repeat it
    assert "are your skills, not repeated here" in context
    assert f'<skill-context name="{SLUG}">' in copilot_said(second) and BODY in copilot_said(second)


def pi_session(root: Path, env: dict[str, str], script: list[Turn]) -> list[Request]:
    pi = str(agent_binary("pi"))
    server = AnthropicServer()
    server.script(*script)
    with server:
        user_setup(Path(env["HOME"]), server)
        try:
            done = run([pi, "--model", MODEL, "--mode", "json", "How do I restore last night's backup?"],
                       root, pi_env(env, server), timeout=120)
        finally:
            stop_capture_workers()
    assert done.returncode == 0, done.stderr[-3000:]
    assert server.outside_requests() == []
    return server.model_requests()


def test_pi_lists_the_skill_and_the_model_reads_its_body(project: Path, agent_env: dict[str, str]) -> None:
    install(project, agent_env, "pi")
    context = memcli(project, agent_env, "context", "--agent", "pi").stdout.strip()
    path = project / ".agents/skills" / SLUG / "SKILL.md"
    first, second = pi_session(project, agent_env, [Turn(tool="read", args={"path": str(path)}),
                                                    Turn(text="Restore it from the NAS.")])
    system = system_text(first)
    assert (f"<name>{SLUG}</name>\n    <description>{DESCRIPTION}</description>\n"
            f"    <location>{path}</location>") in system
    assert "are your skills, not repeated here" in context
    assert context in system and f"- {SLUG} — " not in system  # the index does not repeat it
    (read,) = tool_results(second)
    assert not read["is_error"] and BODY in json.dumps(read["content"], ensure_ascii=False)


def test_pi_does_not_load_a_skill_git_ignores_and_memcli_says_so(project: Path,
                                                                 agent_env: dict[str, str]) -> None:
    """Skills not committed (`[skills] commit = false`) carry a `.gitignore`, which Pi's loader
    honours: memcli reports the skill left out for Pi and keeps the record in Pi's context."""
    (project / "memcli.toml").write_text("[skills]\ncommit = false\n", encoding="utf-8")
    install(project, agent_env, "pi")
    assert reported(project, agent_env, "pi")["omitted"] == [SLUG]
    context = memcli(project, agent_env, "context", "--agent", "pi").stdout.strip()
    (first,) = pi_session(project, agent_env, [Turn(text="Done.")])
    system = system_text(first)
    assert f"<name>{SLUG}</name>" not in system
    assert context in system and f"- {SLUG} — {DESCRIPTION}" in context  # in memcli's index instead


def opencode_session(root: Path, env: dict[str, str], script: list[Turn]) -> list[Request]:
    opencode = agent_binary("opencode")
    with OpenCodeServer() as server:
        user_config(Path(env["HOME"]), server)
        server.script(*script)
        try:
            opencode_run(opencode, root, env, server, "How do I restore last night's backup?")
        finally:
            stop_capture_workers()
        return server.model_requests()


def test_opencode_lists_the_skill_and_its_skill_tool_loads_the_body(project: Path,
                                                                    agent_env: dict[str, str]) -> None:
    install(project, agent_env, "opencode")
    context = memcli(project, agent_env, "context", "--agent", "opencode").stdout.strip()
    first, *_, last = opencode_session(project, agent_env, [Turn(tool="skill", args={"name": SLUG}),
                                                           Turn(text="Restore it from the NAS.")])
    said = "\n".join(opencode_texts(first))
    path = project / ".agents/skills" / SLUG / "SKILL.md"
    assert (f"<name>{SLUG}</name>\n    <description>{DESCRIPTION}</description>\n"
            f"    <location>{path}</location>") in said
    assert "are your skills, not repeated here" in context
    assert context in said and f"- {SLUG} — " not in said
    outputs = [item["output"] for item in last.body["input"] if item.get("type") == "function_call_output"]
    assert any(BODY in out and f'<skill_content name="{SLUG}">' in out for out in outputs), outputs


# --- 200 knowledge records: what each agent lists, against what memcli reports ------------------


def two_hundred(root: Path, env: dict[str, str]) -> dict[str, str]:
    """200 knowledge records (slug → description), committed."""
    out = {}
    for i in range(200):
        slug = f"k{i:03d}-{WORDS[i % len(WORDS)]}-note"
        description = (f"How to handle the {WORDS[i % len(WORDS)]} subsystem (case {i}) when it "
                       "misbehaves in production; restart, logs and rollback.")
        (root / "knowledge" / f"{slug}.md").write_text(
            "---\ncreated_at: 2026-11-02T10:00:00+00:00\nupdated_at: 2026-11-02T10:00:00+00:00\nkind: howto\n"
            f"description: {description}\nmodel_invocation: true\nuser_invocable: true\nlast_sources: []\n"
            f"---\nSteps for case {i}.\n", encoding="utf-8")
        out[slug] = description
    run(["git", "add", "-A"], root, env).check_returncode()
    run(["git", "commit", "-q", "-m", "200 records"], root, env).check_returncode()
    return out


def seen_in(listing: str, records: dict[str, str], pattern: str) -> dict[str, str]:
    """What the listing shows of each record: whole, shortened, bare (name only) or omitted."""
    out = {}
    for slug, description in records.items():
        found = re.search(pattern.format(name=re.escape(slug)), listing)
        shown = (found.group(1) or "").strip() if found else None
        out[slug] = ("omitted" if shown is None else "whole" if shown == description
                     else "bare" if not shown else "shortened")
    return out


def reported(root: Path, env: dict[str, str], agent: str) -> dict[str, Any]:
    return json.loads(memcli(root, env, "skills", "sync", "--json").stdout)["listings"][agent]


def counts(seen: dict[str, str]) -> dict[str, int]:
    return {k: list(seen.values()).count(k) for k in ("whole", "shortened", "bare", "omitted")}


@pytest.mark.parametrize(("agent", "window"), [("claude-code", None), ("codex", None), ("gemini", None),
                                               ("codex", 30_000),  # 600 tokens: most left out
                                               ("copilot", None), ("pi", None), ("opencode", None)])
def test_with_200_records_memcli_reports_what_the_agent_lists(agent: str, window: int | None, project: Path,
                                                              agent_env: dict[str, str]) -> None:
    records = two_hundred(project, agent_env)
    (project / "knowledge" / f"{SLUG}.md").unlink()  # the fixture's record: only the 200 here
    memcli(project, agent_env, "hooks", "install", "--agent", agent)
    done = [Turn(text="Done.")]
    if agent == "claude-code":
        listing = claude_listing(claude_session(project, agent_env, done)[0])
        seen = seen_in(listing, records, r"^- {name}(?::(.*))?$".replace("^", "(?m)^"))
    elif agent == "codex":
        listing = codex_listing(codex_session(project, agent_env, done, sync=True, window=window)[0])
        seen = seen_in(listing, records, r"(?m)^- {name}:(.*?)\(file: ")
    elif agent == "copilot":  # entries, then "Additional skills available (invoke by name): a, b"
        listing = copilot_listing(copilot_session(project, agent_env, done)[0])
        seen = seen_in(listing, records, r"<name>{name}</name>\s*<description>(.*?)</description>"
                                         r"|(?:: |, ){name}(?=,|\n|$)()")
    else:
        if agent == "pi":
            listing = system_text(pi_session(project, agent_env, done)[0])
        elif agent == "opencode":
            listing = "\n".join(opencode_texts(opencode_session(project, agent_env, done)[0]))
        else:
            listing = gemini_system(gemini_session(project, agent_env, done)[0])
        seen = seen_in(listing, records, r"<name>{name}</name>\s*<description>(.*?)</description>")
    report = reported(project, agent_env, agent)
    print(f"\n{agent}: lists {counts(seen)}; memcli reports {report['skills']} skills, "
          f"{len(report['shortened'])} shortened, {len(report['bare'])} by name only, "
          f"{len(report['omitted'])} left out ({report['rule'] or 'no cap'})")
    assert report["skills"] == 200

    def differ(how: str) -> set[str]:
        return {s for s, shown in seen.items() if shown == how} ^ set(report[how])

    if agent == "claude-code":  # every name; descriptions within a budget memcli estimates
        assert counts(seen)["omitted"] == 0 == len(report["omitted"]) and counts(seen)["shortened"] == 0
        assert counts(seen)["bare"] and len(differ("bare")) <= 10, (differ("bare"), report["bare"])
    else:
        assert differ("shortened") == set()
        # Codex: over the cap the table of skill roots costs what memcli knows to within a token
        # (ALIAS_WORDING_SAVES), so at most one skill at the edge may land on the other side
        edge = 1 if window else 0
        assert len(differ("omitted")) <= edge and len(differ("bare")) <= edge, (differ("omitted"),
                                                                                 differ("bare"))
    # the resident context keeps what the agent does not show whole, and only that
    index = json.loads(memcli(project, agent_env, "context", "--agent", agent, "--json").stdout)
    partial = set(report["shortened"]) | set(report["bare"]) | set(report["omitted"])
    assert index["skills"]["knowledge"] == 200 - len(partial)
    assert {e["slug"] for e in index["knowledge"]} <= partial
