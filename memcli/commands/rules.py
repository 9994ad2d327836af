"""`memcli rules [CODE]`: list the lint rules, or print one rule's documentation (memcli.lint.docs)."""

from __future__ import annotations

from pathlib import Path

from memcli.errors import EXIT_OK, WorkspaceNotFound
from memcli.lint.docs import SCOPE, doc_of, find_rule, settings_of, what_of
from memcli.lint.registry import RULES
from memcli.workspace import Workspace


def _workspace_config(workspace: Path | None) -> Workspace | None:
    """The workspace's config (`-w`, or the one above the current directory); None outside any."""
    try:
        return Workspace.open(workspace)
    except WorkspaceNotFound:
        if workspace is not None:
            raise
        return None


def run(code: str | None = None, *, workspace: Path | None = None) -> int:
    """`memcli rules`: list every code, or print one rule's documentation (with the thresholds the
    workspace sets for it)."""
    if code is None:
        width = max(len(r.code) for r in RULES)
        for rule in RULES:
            print(f"{rule.alias}  {rule.code:<{width}}  {rule.severity:<7}  {what_of(rule)}")
        return EXIT_OK
    rule = find_rule(code)
    print(f"{rule.code} ({rule.alias}, {rule.severity}, {SCOPE[rule.scope]})\n")
    print(doc_of(rule))
    names = settings_of(rule)
    ws = _workspace_config(workspace) if names else None
    if ws is not None:
        lint = ws.config.lint
        values = ", ".join(f"{name} = {getattr(lint, name)}" for name in names)
        print(f"\nIn {ws.root}: [lint] {values}")
    return EXIT_OK
