"""What this clone knows about shared staging, kept in the state folder (`staging-shared.json`;
in a linked worktree, the main worktree's, as staging is the clone's).

- `pulled`: staging id → [remote, publisher] for items pulled from a ref, so a consolidation that
  uses them knows which ref to remove them from;
- `seen`: the oid of each ref when it was last read here (the lease of the next update);
- `consumed`: ids this clone consolidated; a later pull never brings them back;
- `pending`: consumed ids whose removal from a ref has not gone through yet (`consolidate
  --keep-published`, or a push that failed): done by `staging clear` or the next consolidation;
- `published`: ids this clone has published (never re-published once consumed elsewhere).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from memcli.atomicio import atomic_write_text
from memcli.workspace import Workspace

STATE_FILE = "staging-shared.json"


@dataclass
class SharedState:
    pulled: dict[str, list[str]] = field(default_factory=dict)
    seen: dict[str, str] = field(default_factory=dict)
    consumed: list[str] = field(default_factory=list)
    pending: list[str] = field(default_factory=list)
    published: list[str] = field(default_factory=list)

    @staticmethod
    def key(remote: str, name: str) -> str:
        return f"{remote}\t{name}"

    @classmethod
    def load(cls, ws: Workspace) -> SharedState:
        try:
            data = json.loads((ws.clone_state_dir / STATE_FILE).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return cls()
        if not isinstance(data, dict):
            return cls()
        empty = cls()  # a field of the wrong shape (a hand edit) is read as empty, never a crash
        return cls(**{k: data[k] for k in cls.__dataclass_fields__
                      if isinstance(data.get(k), type(getattr(empty, k)))})

    def save(self, ws: Workspace) -> None:
        data = {k: getattr(self, k) for k in self.__dataclass_fields__}
        atomic_write_text(ws.clone_state_dir / STATE_FILE, json.dumps(data, ensure_ascii=False, indent=1))
