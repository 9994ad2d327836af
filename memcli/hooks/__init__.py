"""What the agents' hooks run, and wiring memcli into the agents (`memcli hooks ...`).

    payload.py   what a hook sends, read without blocking; `memcli extract --hook` (detaches a worker)
    start.py     `memcli hooks session-start`: the resident context in the agent's form
    capture.py   the detached worker that extracts a session once it has ended or gone idle
    install.py   `memcli hooks install | uninstall | status` over every agent's wiring
    edit.py      memcli's entries added to and removed from one config file's text

What differs between agents (their config files, output form, session-end events) is declared by
each agent (memcli/agents/); this package reads it through memcli/agents/registry.py.
"""
