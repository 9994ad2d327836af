"""The transcript model every agent's reader produces, and the machinery the readers share.

Names no agent: the agents (memcli/agents/, one package each) build on it, and discovery and
reading over all of them (memcli/sessions/) sit above both.

    model.py    Entry, SessionInfo, ToolCall, ToolResult, ReadStats: what a reader produces
    base.py     bounded line reading, JSONL records, the EntryStream, time and text helpers
    resume.py   Position and Cursor: resuming an appended transcript where a read stopped
    cache.py    the scan cache under the state folder
"""
