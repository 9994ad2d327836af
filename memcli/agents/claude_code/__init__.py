"""Claude Code (Anthropic's CLI agent), checked against 2.1.332.

- transcript.py  `<claude home>/projects/<encoded cwd>/<session>.jsonl` read into entries
- discovery.py   which project folders hold the workspace's sessions
- wiring.py      hooks and allow rules in `.claude/settings.json`, the MCP server in `.mcp.json`
                 (user scope: `~/.claude/settings.json`, `~/.claude.json`); workspace trust and
                 the project server's approval, read from its own files
- skills.py      its Agent Skills: `disable-model-invocation`, `user-invocable`, its listing
- headless.py    `claude -p` as memcli's model (`agent/claude-code`): a question, or a run with
                 memcli's tools only

SessionStart stdout is added to the context as is; SessionEnd ends a session (PreCompact does not).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from memcli.agents.base import TEXT, Headless, Hooks, Skills

if TYPE_CHECKING:
    from memcli.agents.parts import Parts

NAME = "claude-code"
TITLE = "Claude Code"
HOOKS = Hooks("claude-code", TEXT, end_events=frozenset({"SessionEnd"}))
SKILLS = Skills((".claude/skills",), ("~/.claude/skills",))  # dialect: skills.py
TOOL_NAMES = ("mcp__{server}__{tool}",)  # in its transcripts and in `permissions.allow`
HEADLESS = Headless("claude", context_tokens=200_000)  # dialect: headless.py


def load() -> Parts:
    # here: on use; the hooks' start-up paths read the facts above alone (base.py)
    from memcli.agents.claude_code import discovery, headless, skills, transcript, wiring
    from memcli.agents.parts import Parts

    return Parts(transcript.READER, discovery.DISCOVERY, wiring.WIRING, skills.DIALECT, headless.DIALECT)
