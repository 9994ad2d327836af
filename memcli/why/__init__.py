"""A record's whole story (`memcli why SLUG|PATH`, memcli.commands.why prints it).

Everything here is read from what already exists, nothing is stored for it: git history of the file
(consolidation commits carry the operation, category and reason of each file they touched, and the
tool calls the run refused; any other commit is a human edit), the record's Sources traced back
through the session adapters (a short, redacted excerpt of each, with the roles of the entries it
points to), the usage figures `memcli metrics` saved, and the `replaced_by` links in both directions.
"""

from __future__ import annotations

from memcli.why.history import REFUSED_TRAILER, RUN_TRAILER, Change
from memcli.why.sources import SourceStory
from memcli.why.story import Story, resolve, story

__all__ = ["REFUSED_TRAILER", "RUN_TRAILER", "Change", "SourceStory", "Story", "resolve", "story"]
