"""The memcli exception family.

Every error a user can cause (bad arguments, a broken config, a missing model key, a held lock) is a
`MemcliError` whose message says what to do. One boundary (`memcli.cli`) turns them into
`Error: ...` and an exit code; anything else that escapes is a bug and exits 3 with a traceback log.
"""

from __future__ import annotations

# Exit codes shared by every command (spec 1 §4).
EXIT_OK = 0
EXIT_FINDINGS = 1  # lint errors, a failed run
EXIT_USAGE = 2  # usage or config error
EXIT_BUG = 3  # an unexpected exception inside memcli
EXIT_LOCKED = 4  # another consolidation holds the workspace (cron scripts tell it from a failure)
EXIT_INTERRUPTED = 130  # Ctrl-C (128 + SIGINT, as shells report it)
EXIT_TERMINATED = 143  # SIGTERM (128 + 15): a `timeout`, a scheduler or a service stop (boundary.terminable)


class Terminated(KeyboardInterrupt):
    """SIGTERM arrived (memcli.boundary.terminable): handled wherever Ctrl-C is, exits 143."""


class MemcliError(Exception):
    """A failure the user can act on. `exit_code` is what the CLI exits with."""

    exit_code = EXIT_FINDINGS


class UsageError(MemcliError):
    """Wrong arguments or options."""

    exit_code = EXIT_USAGE


class ConfigError(MemcliError):
    """The workspace config cannot be read or has invalid values."""

    exit_code = EXIT_USAGE


class WorkspaceNotFound(UsageError):
    """No workspace above the current directory."""
