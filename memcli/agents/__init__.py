"""What memcli knows about each coding agent, one package per agent behind one interface.

    base.py       the interface: what an agent's declaration holds (Agent, Hooks)
    parts.py      what its load() returns: Reader, Discovery, Wiring, and their shared helpers
    registry.py   every agent, listed once
    targets.py    the config entries an agent's wiring declares (hooks, MCP server, allow rules)
    jsonedit.py   JSON with comments, edited in place (agents' settings files)
    claude_code/ codex/ gemini_cli/ copilot_cli/ pi/ opencode/ aider/ memcli_jsonl/   one package per agent

Built on memcli.transcript (the entry model); memcli.sessions (discovery and reading over every
agent) and memcli.hooks (what the agents' hooks run, and wiring them) are built on this.
"""
