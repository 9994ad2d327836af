"""One-line progress notes for a person watching a terminal.

Model commands have seconds of work before their first result (reading sessions, loading the
model library); a note says what is happening at once. Notes go to stderr and only when it is a
terminal, so piped output, logs and `--json` stay exactly as before.
"""

from __future__ import annotations

import sys


def note(message: str) -> None:
    stream = sys.stderr
    if stream is not None and stream.isatty():
        stream.write(message + "\n")
        stream.flush()
