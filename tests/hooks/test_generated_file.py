"""A config file memcli writes whole (memcli/agents/edit.py, fmt `file`: an agent's extension module,
Pi's the first): its states, what install and uninstall make of each, the text an earlier memcli
wrote brought up to date."""

from __future__ import annotations

from pathlib import Path

import pytest

from memcli.agents import edit
from memcli.agents.targets import ConfigFile, generated

MARKER = "// written by memcli: "
OLD = f"{MARKER}v1\nexport default 1;\n"
NEW = f"{MARKER}v2\nexport default 2;\n"
CF = ConfigFile("x", Path("/nowhere/ext.ts"), "file", (generated("memcli extension", NEW, MARKER, (OLD,)),))


@pytest.mark.parametrize("text, state, installed, uninstalled", [
    ("", "missing", NEW, ""),
    (NEW, "installed", NEW, ""),
    (OLD, "outdated", NEW, ""),  # an earlier memcli's: brought up to date
    (NEW + "// mine\n", "modified", NEW + "// mine\n", ""),  # edited: left alone, still memcli's to remove
    ("export default 0;\n", "modified", "export default 0;\n", "export default 0;\n"),  # not memcli's at all
])
def test_states_and_what_install_and_uninstall_make_of_them(text: str, state: str, installed: str,
                                                            uninstalled: str) -> None:
    assert [s for _entry, s in edit.status(CF, text)] == [state]
    assert edit.install(CF, text) == installed
    assert edit.uninstall(CF, text) == uninstalled
    assert edit.data(CF, uninstalled) == ({} if not uninstalled else {"text": uninstalled})
    assert edit.drop_retired(CF, text) == text
