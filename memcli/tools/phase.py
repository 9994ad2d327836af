"""The phase of a consolidation run, owned by its ToolSession (`tools.phase`); the conversation
that drives the run, the progress line, the journal and the refusals read it from there.

integration: the staging items are worked into memory, batch by batch; gc: the memory is cleaned
up, and every mutating call names its category; repair: the lint errors the whole result still has
are fixed (fixing a record is no GC decision, so no category is asked for).
"""

from __future__ import annotations

from enum import StrEnum


class Phase(StrEnum):
    INTEGRATION = "integration"
    GC = "gc"
    REPAIR = "repair"

    @property
    def needs_category(self) -> bool:
        """Whether a mutating call must say which GC category it falls in."""
        return self is Phase.GC
