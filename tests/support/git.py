"""The one way tests run git: in a folder, with the fixed identity tests/conftest.py sets."""

from __future__ import annotations

import subprocess
from collections.abc import Mapping
from pathlib import Path


def git_result(root: Path, *args: str, check: bool = True, env: Mapping[str, str] | None = None,
               timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """`git ARGS` run in `root`; with `check`, a failure fails the test with git's own words."""
    done = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=False,
                          env=dict(env) if env is not None else None, timeout=timeout)
    if check:
        assert done.returncode == 0, f"git {' '.join(args)}: {done.stdout}{done.stderr}"
    return done


def git(root: Path, *args: str, check: bool = True, env: Mapping[str, str] | None = None,
        timeout: float = 120) -> str:
    """What `git ARGS` printed (see `git_result`)."""
    return git_result(root, *args, check=check, env=env, timeout=timeout).stdout
