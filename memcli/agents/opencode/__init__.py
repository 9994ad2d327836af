"""OpenCode (the `opencode-ai` CLI agent), checked against 1.18.33.

- database.py    its one SQLite database for every folder's sessions, read only: what a session's
                 "file" and its "lines" are there
- transcript.py  a session's parts read into entries
- discovery.py   where the database is, and which of its sessions are the workspace's
- wiring.py      the MCP server and allow rules in `opencode.json`, and memcli's plugin in
                 `.opencode/plugins/memcli.js` (user scope: under `~/.config/opencode/`)
- plugin.js      that plugin: OpenCode's hooks are plugins (JavaScript), not commands
- skills.py      its Agent Skills: name and description only, every skill listed whole
- headless.py    `opencode run` as memcli's model (`agent/opencode`): a question, or a run with
                 memcli's tools only

The plugin prints nothing to OpenCode: it adds what `memcli hooks session-start` prints, as is, to a
session's first prompt. It calls capture with `session.idle` after each prompt (the session goes
on: capture waits for the idle window) and `dispose` when OpenCode closes, which ends a session.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from memcli.agents.base import TEXT, Headless, Hooks, Skills

if TYPE_CHECKING:
    from memcli.agents.parts import Parts

NAME = "opencode"
TITLE = "OpenCode"
HOOKS = Hooks("opencode", TEXT, end_events=frozenset({"dispose"}))
# it reads `.claude/skills` too, Claude Code's: memcli leaves that folder to Claude Code (skills.py)
SKILLS = Skills((".agents/skills", ".opencode/skills", ".opencode/skill"),
                ("~/.agents/skills", "~/.config/opencode/skills", "~/.claude/skills"))
TOOL_NAMES = ("{server}_{tool}",)  # an MCP server's tool, in its sessions and in `permission`
HEADLESS = Headless("opencode", context_tokens=128_000)  # dialect: headless.py


def load() -> Parts:  # here: on use; the hooks' start-up paths read the facts above alone (base.py)
    from memcli.agents.opencode import discovery, headless, skills, transcript, wiring
    from memcli.agents.parts import Parts

    return Parts(transcript.READER, discovery.DISCOVERY, wiring.WIRING, skills.DIALECT,
                 headless.DIALECT)
