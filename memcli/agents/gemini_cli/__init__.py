"""Gemini CLI (Google's CLI agent), checked against 0.61.0.

- transcript.py  both layouts read into entries: the JSON document rewritten whole (before 0.61)
                 and the appended JSONL (0.61 on), replayed by replay.py
- discovery.py   which folders under `<gemini home>/tmp` hold the workspace's sessions
- wiring.py      hooks and the MCP server in `.gemini/settings.json` (user: `~/.gemini/settings.json`);
                 folder trust, read from Gemini's own files
- skills.py      its Agent Skills: name and description only
- headless.py    `gemini -p` as memcli's model (`agent/gemini`): a question, or a run with memcli's
                 tools only

Its hooks must print JSON only (plain text becomes a message to the user, not context); SessionEnd
ends a session. `memcli hooks --agent gemini` names it, as the commands already installed do.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from memcli.agents.base import JSON, Headless, Hooks, Skills

if TYPE_CHECKING:
    from memcli.agents.parts import Parts

NAME = "gemini-cli"
TITLE = "Gemini CLI"
# `gemini`, as the hook commands installed since the first memcli name it
HOOKS = Hooks("gemini", JSON, end_events=frozenset({"SessionEnd"}))
SKILLS = Skills((".agents/skills", ".gemini/skills"), ("~/.agents/skills", "~/.gemini/skills"))
# 0.61 names an MCP tool `mcp_<server>_<tool>`; earlier releases the bare name or `<server>__<tool>`
TOOL_NAMES = ("mcp_{server}_{tool}", "{tool}", "{server}__{tool}")
HEADLESS = Headless("gemini", context_tokens=200_000)  # its models hold 1M; chunks need far less


def load() -> Parts:
    # here: on use; the hooks' start-up paths read the facts above alone (base.py)
    from memcli.agents.gemini_cli import discovery, headless, skills, transcript, wiring
    from memcli.agents.parts import Parts

    return Parts(transcript.READER, discovery.DISCOVERY, wiring.WIRING, skills.DIALECT,
                 headless.DIALECT)
