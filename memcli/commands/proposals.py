"""`memcli proposals` (list) and `memcli proposals reject`: the review gate of `consolidate --propose`
(memcli.consolidate.proposals)."""

from __future__ import annotations

import json
from pathlib import Path

from memcli.commands import open_workspace
from memcli.consolidate import gitops, proposals
from memcli.errors import EXIT_OK, UsageError
from memcli.workspace import Workspace


def _repo(ws: Workspace) -> gitops.Repo:
    repo = gitops.open_repo(ws)
    if repo is None:
        raise UsageError(f"{ws.root} is not inside a git repository: proposals are git branches")
    return repo


def run(*, show_all: bool = False, as_json: bool = False, workspace: Path | None = None) -> int:
    ws = open_workspace(workspace)
    found = proposals.settle(ws, _repo(ws))
    if show_all:
        found += proposals.rejected(ws)
    if as_json:
        print(json.dumps({"proposals": [p.to_json() for p in found]}, ensure_ascii=False, indent=2))
        return EXIT_OK
    if not found:
        print("proposals: none open (`memcli consolidate --propose` makes one)")
    for p in found:
        files = f"{len(p.staging)} staging files"
        if p.state == "accepted":
            print(f"{p.branch}: accepted (merged into {p.merged_in}); its {files} are consumed")
        elif p.state == "rejected":
            print(f"{p.branch}: rejected: {p.reason} ({files}, kept in the state folder's "
                  f"{proposals.REJECTED_DIR}/{p.run_id}/)")
        elif p.state == "gone":
            print(f"{p.branch}: its branch was deleted without a merge; {files} held: "
                  f"`memcli proposals reject {p.run_id} --reason ...` drops them")
        else:
            print(f"{p.branch}: open, on {p.base or p.parent[:10]} since {p.created_at} ({files})")
            for line in p.review():
                print(f"  {line}")
    return EXIT_OK


def reject(run_id: str, *, reason: str, workspace: Path | None = None) -> int:
    ws = open_workspace(workspace)
    p = proposals.reject(ws, _repo(ws), run_id, reason)
    where = f"{proposals.REJECTED_DIR}/{p.run_id}/"
    print(f"proposals: rejected {p.branch} (branch deleted); its {len(p.staging)} staging files are kept, "
          f"with the reason, in the state folder's {where}; never proposed again")
    return EXIT_OK
