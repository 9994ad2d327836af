"""Registering the merge driver: the `.gitattributes` lines (they travel with the repository) and
the driver command in this clone's git config (which does not travel: every clone runs
`memcli init` once, and `memcli status` says when a clone has not)."""

from __future__ import annotations

from pathlib import Path

from memcli import git
from memcli.atomicio import atomic_write_text
from memcli.errors import MemcliError

DRIVER_NAME = "memcli"
DRIVER_COMMAND = "memcli merge-driver %O %A %B %P"
ATTRIBUTE_LINES = (
    f"memory/** merge={DRIVER_NAME}",
    f"knowledge/** merge={DRIVER_NAME}",
    "memory/_staging/** !merge",  # staging is not records (and normally git-ignored)
)


def _config(root: Path, *args: str) -> str | None:
    """`git config ARGS`: what it printed, or None when it failed (an unset key: exit 1)."""
    return git.text(root, "config", *args)


def in_git_repo(root: Path) -> bool:
    return git.text(root, "rev-parse", "--git-dir") is not None


def driver_configured(root: Path) -> bool | None:
    """Whether this clone runs memcli's driver for records; None outside a git repository."""
    if not in_git_repo(root):
        return None
    return (_config(root, "--get", f"merge.{DRIVER_NAME}.driver") or "").strip() != ""


def register(root: Path) -> list[str]:
    """Add whatever of the registration is missing; returns what was added (nothing: already done)."""
    added: list[str] = []
    attributes = root / ".gitattributes"
    existing = attributes.read_text(encoding="utf-8") if attributes.exists() else ""
    present = {" ".join(line.split()) for line in existing.splitlines()}
    missing = [line for line in ATTRIBUTE_LINES if line not in present]
    if missing:
        block = ("" if not existing or existing.endswith("\n") else "\n") + (
            "# memcli: merge memory records field by field (memcli merge-driver)\n"
        )
        atomic_write_text(attributes, existing + block + "\n".join(missing) + "\n")
        added.append(".gitattributes entries")
    if not in_git_repo(root):
        return added
    if (_config(root, "--get", f"merge.{DRIVER_NAME}.driver") or "").strip() != DRIVER_COMMAND:
        _config(root, "--local", f"merge.{DRIVER_NAME}.name", "memcli record merge")
        done = git.run(root, "config", "--local", f"merge.{DRIVER_NAME}.driver", DRIVER_COMMAND)
        if done.returncode != 0:
            why = done.stderr.decode("utf-8", "replace").strip()
            raise MemcliError(f"cannot set the merge driver in git config: {why}")
        added.append("merge driver in git config")
    return added
