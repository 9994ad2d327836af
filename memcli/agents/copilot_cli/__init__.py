"""GitHub Copilot CLI (npm `@github/copilot`), checked against 1.0.102.

- transcript.py  `<copilot home>/session-state/<session id>/events.jsonl` read into entries
- discovery.py   which of those sessions ran in the workspace (their `session.start` says where)
- wiring.py      hooks in `.github/hooks/memcli.json`, the MCP server in `.github/mcp.json` (user
                 scope: `~/.copilot/hooks/memcli.json`, `~/.copilot/mcp-config.json`), at project scope
                 memcli's tools approved by a PreToolUse hook in the first; folder trust, read from
                 `~/.copilot/config.json`
- skills.py      its Agent Skills: Claude Code's fields, its listing's character budget
- headless.py    `copilot` in prompt mode as memcli's model (`agent/copilot`): a question, or a run
                 with memcli's tools only

Its hooks are configured with PascalCase event names, which get the snake_case payload memcli's
hooks read (`session_id`, `cwd`, `hook_event_name`); a SessionStart hook's context is the
`additionalContext` of the JSON object it prints; SessionEnd ends a session.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from memcli.agents.base import ADDITIONAL_CONTEXT, Headless, Hooks, Skills

if TYPE_CHECKING:
    from memcli.agents.parts import Parts

NAME = "copilot-cli"
TITLE = "GitHub Copilot CLI"
HOOKS = Hooks("copilot", ADDITIONAL_CONTEXT, end_events=frozenset({"SessionEnd"}))
# memcli writes the first unless another agent reads one of the others; the first wins a shared name
SKILLS = Skills((".github/skills", ".agents/skills", ".claude/skills"),
                ("~/.copilot/skills", "~/.agents/skills"))
# `<server>-<tool>` in its transcripts (the event also names server and tool apart)
TOOL_NAMES = ("{server}-{tool}",)
HEADLESS = Headless("copilot", context_tokens=64_000)  # 1.0.102 caps a prompt (maxPromptTokens) at 64k


def load() -> Parts:  # here: on use; the hooks' start-up paths read the facts above alone (base.py)
    from memcli.agents.copilot_cli import discovery, headless, skills, transcript, wiring
    from memcli.agents.parts import Parts

    return Parts(transcript.READER, discovery.DISCOVERY, wiring.WIRING, skills.DIALECT,
                 headless.DIALECT)
