"""The prompt templates (Markdown), shipped inside the package.

They are read as the package's resources, the one way that gives the same files in a source
checkout, an editable install and an installed wheel or zipapp.
"""

from __future__ import annotations

from importlib.resources import files


def read(name: str) -> str:
    """The text of the prompt file `name` (e.g. `extract-system.md`)."""
    return files(__name__).joinpath(name).read_text(encoding="utf-8")
