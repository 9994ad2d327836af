"""Shared fixtures. Helpers that tests import live in tests/support/ (not collected)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

pytest_plugins = ["support.fake_llm"]  # the `fake_llm` fixture (a local OpenAI-compatible server)

REPO = Path(__file__).resolve().parent.parent
EXAMPLE = REPO / "examples" / "workspace"

# Fixed identities and dates so temp git repos behave the same on every machine.
GIT_ENV = {
    "GIT_AUTHOR_NAME": "memcli tests",
    "GIT_AUTHOR_EMAIL": "tests@memcli.invalid",
    "GIT_COMMITTER_NAME": "memcli tests",
    "GIT_COMMITTER_EMAIL": "tests@memcli.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
}


@pytest.fixture(autouse=True)
def _isolated_env(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test gets its own state folder and git identity; no network price-map fetch."""
    state = tmp_path_factory.mktemp("state")
    monkeypatch.setenv("MEMCLI_STATE_DIR", str(state))
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    for key in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "OPENCODE_DB"):  # OpenCode's folders follow HOME
        monkeypatch.delenv(key, raising=False)
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    os.environ.pop("GITHUB_ACTIONS", None)


@pytest.fixture
def example_ws(tmp_path: Path) -> Path:
    """A writable copy of the bundled example workspace."""
    import shutil

    dest = tmp_path / "ws"
    shutil.copytree(EXAMPLE, dest)
    return dest
