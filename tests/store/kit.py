"""Builders for the store tests (imported as `store.kit`): what a generated workspace lacks."""

from __future__ import annotations

import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "bench"))
import workspace_gen  # noqa: E402, F401  (the speed benches' generator, for conftest.py)

TS = "created_at: 2026-04-01T10:00:00+09:00\nupdated_at: 2026-04-03T10:00:00+09:00\n"
SRC = "  - session_id: s-9\n    range: [0, 4]\n"


def write(root: Path, rel: str, text: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def extras(root: Path) -> None:
    """What a generated workspace lacks: replaced decisions (a chain), anchors that hold and one
    that does not, references, broken records of every sort, a symlinked record and a folder
    named like one."""
    write(root, "src/app.py", "def run_pending():\n    pass\n")
    replaced = f"---\n{TS}status: replaced\nreplaced_by: {{}}\nsources:\n{SRC}---\n"
    write(root, "memory/decisions/mail-v1.md", replaced.format("mail-v2") + "Mail mail mail via cron.\n")
    write(root, "memory/decisions/mail-v2.md", replaced.format("mail-v3") + "Mail via a thread.\n")
    write(root, "memory/decisions/mail-v3.md", f"---\n{TS}status: resolved\nsources:\n{SRC}anchors:\n"
          "  - src/app.py\n  - path: src/app.py\n    symbol: run_pending\n---\nMail via the queue.\n")
    write(root, "knowledge/anchored-rule.md", f"---\n{TS}kind: rule\n"
          "description: '  Run   the jobs\n  runner.'\nmodel_invocation: true\nuser_invocable: true\n"
          "last_sources: []\nanchors:\n  - path: src/app.py\n"
          "    symbol: gone_symbol\n  - src/missing.py\n---\nSee `mail-v3` and #anchored-rule.\n")
    write(root, "knowledge/old-spelling.md", f"---\n{TS}kind: howto\ndescription: Old spelling.\n"
          "model_invokation: true\nuser_invocable: true\nlast_sources: []\n---\nBody.\n")
    write(root, "knowledge/Bad_Slug.md", f"---\n{TS}kind: fact\ndescription: Bad slug.\n"
          "model_invocation: true\nuser_invocable: true\nlast_sources: []\n---\nBody.\n")
    write(root, "knowledge/no-front.md", "just text, no frontmatter\n")
    write(root, "knowledge/bad-yaml.md", "---\nkind: [rule\n---\nbody\n")
    write(root, "knowledge/a-list.md", "---\n- a\n- b\n---\nbody\n")
    write(root, "knowledge/dup-key.md", f"---\n{TS}kind: fact\nkind: rule\n---\nbody\n")
    write(root, "knowledge/omap.md", f"---\n{TS}kind: !!omap [a: 1]\ndescription: x\n---\nbody\n")
    write(root, "knowledge/when.md", f"---\n{TS}kind: fact\ndescription: 2026-04-01\nmodel_invocation: true\n"
          "user_invocable: true\nlast_sources: []\nnote: 2026-04-01 10:00:00.5+09:30\n---\nbody\n")
    (root / "knowledge/binary.md").write_bytes(b"---\n\x00\x01\n---\n")
    (root / "knowledge/latin1.md").write_bytes("---\n---\ncaf\xe9".encode("latin-1"))
    write(root, "memory/workflow/release-steps.md", f"---\n{TS}description: Release.\nauto_invoke: false\n"
          "user_invocable: true\nrequires: [anchored-rule, gone-rule]\n---\nSteps in `src/old.py`.\n")
    write(root, "outside/linked-target.md", f"---\n{TS}kind: policy\ndescription: Reached through a link.\n"
          "model_invocation: true\nuser_invocable: true\nlast_sources: []\n---\nBody.\n")
    os.symlink(root / "knowledge/anchored-rule.md", root / "knowledge/linked-rule.md")
    (root / "knowledge/folder.md").mkdir()
    write(root, "memory/decisions/.draft.md", replaced.format("mail-v3") + "hidden\n")
