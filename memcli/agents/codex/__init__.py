"""OpenAI Codex CLI, checked against 0.171.0.

- transcript.py  `<codex home>/sessions/YYYY/MM/DD/rollout-*.jsonl` read into entries
- discovery.py   the rollouts whose `session_meta.cwd` is the workspace or inside it
- wiring.py      hooks, the MCP server and the wait for it at start in `.codex/config.toml` (user:
                 `$CODEX_HOME/config.toml`); the folder's and each hook's trust, read from Codex's files
- skills.py      its Agent Skills: `agents/openai.yaml` for explicit use only, its capped listing
- headless.py    `codex exec` as memcli's model (`agent/codex`): a question, or a run with memcli's
                 tools only

Codex has no session-end hook: capture runs at `Stop` (the end of each turn) and `PreCompact`, and
waits for the idle window, so a session still going on is extracted once it has gone quiet. Its
SessionStart takes plain text or JSON; JSON cannot be mistaken.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from memcli.agents.base import JSON, Headless, Hooks, Skills

if TYPE_CHECKING:
    from memcli.agents.parts import Parts

NAME = "codex"
TITLE = "Codex CLI"
HOOKS = Hooks("codex", JSON, end_events=frozenset())  # Stop and PreCompact fire while it goes on
SKILLS = Skills((".agents/skills", ".codex/skills"), ("~/.agents/skills", "$CODEX_HOME/skills"))
# 0.171 names an MCP tool `mcp__<server>__<tool>` (namespace and name, joined by the reader);
# earlier releases `<server>__<tool>`
TOOL_NAMES = ("mcp__{server}__{tool}", "{server}__{tool}")
HEADLESS = Headless("codex", context_tokens=200_000)  # dialect: headless.py


def load() -> Parts:
    # here: on use; the hooks' start-up paths read the facts above alone (base.py)
    from memcli.agents.codex import discovery, headless, skills, transcript, wiring
    from memcli.agents.parts import Parts

    return Parts(transcript.READER, discovery.DISCOVERY, wiring.WIRING, skills.DIALECT, headless.DIALECT)
