"""One run's tools lent to another process over a Unix socket.

Consolidation through a coding agent (memcli.consolidate.delegate) keeps its tool session, ledger
and scratch copy in the memcli process that runs it; the agent starts `memcli mcp --relay SOCKET`
(memcli.mcpserver.relay), which serves those tools over MCP and hands every call back here. The
socket lives in a folder only its user can open (0700), made for the run and removed after it.

The wire is one JSON object per line each way, a request answered before the next is read:

    {"op": "tools"}                                 -> {"tools": [{name, description, input_schema}],
                                                        "instructions": str}
    {"op": "call", "name": str, "arguments": {...}} -> {"text": str, "error": bool}
"""

from __future__ import annotations

import json
import socket
from typing import Any

MAX_LINE = 16 * 1024 * 1024  # a request or answer larger than this is refused, never buffered


class RelayError(Exception):
    """The other side went away or said something that is not the protocol."""


def send(sock: socket.socket, message: dict[str, Any]) -> None:
    sock.sendall(json.dumps(message, ensure_ascii=False).encode("utf-8") + b"\n")


def receive(reader: Any) -> dict[str, Any] | None:
    """The next message from a socket's binary file (`sock.makefile("rb")`); None at its end."""
    line = reader.readline(MAX_LINE + 1)
    if not line:
        return None
    if len(line) > MAX_LINE or not line.endswith(b"\n"):
        raise RelayError("a message longer than the relay takes")
    try:
        message = json.loads(line)
    except ValueError as exc:
        raise RelayError(f"not a relay message ({exc})") from None
    if not isinstance(message, dict):
        raise RelayError("not a relay message (not a JSON object)")
    return message


def connect(path: str, timeout: float = 30.0) -> socket.socket:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    try:
        sock.connect(path)
    except OSError as exc:
        sock.close()
        raise RelayError(f"cannot reach the consolidation run at {path} ({exc})") from None
    sock.settimeout(None)
    return sock
