"""Running the Typer CLI in-process, as `memcli ARGS…` would, for tests that check exit codes and output."""

from __future__ import annotations

import pytest

from memcli.cli import main


def exit_code(*args: str) -> int:
    """The exit code of `memcli ARGS…` (output left to the caller's capsys)."""
    with pytest.raises(SystemExit) as info:
        main(list(args))
    return int(info.value.code or 0)


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of `memcli ARGS…`."""
    code = exit_code(*args)
    out = capsys.readouterr()
    return code, out.out, out.err
