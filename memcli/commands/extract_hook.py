"""`memcli extract --hook`: what an agent's end-of-session hook runs. It reads the hook's JSON on
stdin, starts a detached worker (`memcli hooks capture`) and returns at once: the agent waits for
nothing but Python's start-up and one fork, so this module loads none of extraction."""

from __future__ import annotations

import sys
from pathlib import Path

from memcli.hooks.payload import extract_hook


def run(*, workspace: Path | None = None) -> int:
    return extract_hook(getattr(sys.stdin, "buffer", None), workspace)
