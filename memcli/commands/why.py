"""`memcli why SLUG|PATH`: a record's story (memcli.why) on one screen, or as JSON."""

from __future__ import annotations

import json
from pathlib import Path

from memcli.commands import open_workspace
from memcli.errors import EXIT_OK
from memcli.plural import plural
from memcli.why import Story, story


def run(record: str, *, as_json: bool = False, workspace: Path | None = None) -> int:
    s = story(open_workspace(workspace), record)
    if as_json:
        print(json.dumps(s.to_json(), ensure_ascii=False, indent=2))
    else:
        print(render(s))
    return EXIT_OK


def render(s: Story) -> str:
    lines = [f"{s.path} · {s.kind}" + (f" · {s.status}" if s.status else "")]
    if s.replaced_by:
        lines.append(f"  replaced by: {s.replaced_by}")
    for old in s.replaces:
        lines.append(f"  replaces: {old}")
    lines.extend(f"  note: {n}" for n in s.notes)
    lines += ["", f"History ({plural(len(s.history), 'commit')}, newest first):"]
    if not s.history:
        lines.append("  (none)")
    for c in s.history:
        who = f"consolidate run {c.run_id}" if c.by == "consolidate" else f"human: {c.author}"
        lines.append(f"  {c.commit[:7]} {c.date[:10]} {who}")
        if c.by == "consolidate":
            tag = f" [{', '.join(c.categories)}]" if c.categories else ""
            lines.append(f"    {c.outcome or 'touched'}{tag}" + (f" {c.size}" if c.size else ""))
            lines.extend(f"    {r}" for r in c.reasons)
            lines.extend(f"    from staging item {item}" for item in c.staging)
            if c.refused:
                lines.append(f"    the run refused {c.refused} tool call{'s' if c.refused > 1 else ''}:")
            for r in c.refusals:
                why = f" ({r['line']})" if r.get("line") else ""
                lines.append(f"      {r['tool']} {r.get('path') or '-'}: {r['code']}{why}")
        else:
            lines.append(f"    {c.subject}")
        if c.path != s.path:
            lines.append(f"    (then named {c.path})")
    lines += ["", f"Sources ({len(s.sources)}):"]
    if not s.sources:
        lines.append("  (none)")
    for src in s.sources:
        where = f"  {src.source} ({src.field})"
        if not src.found:
            lines.append(f"{where}: {src.note}")
            continue
        lines.append(f"{where} · {src.agent} · said by {', '.join(src.roles) or 'nobody'}")
        if src.note:
            lines.append(f"    note: {src.note}")
        lines.extend("    " + ln for ln in (src.excerpt or "").splitlines())
    lines += ["", "Used by:"]
    if s.usage is None:
        lines.append("  no usage counted yet (run `memcli metrics`)")
    elif not s.usage["invokes"]:
        lines.append("  no session has read or named it")
    else:
        lines.append(f"  {s.usage['invokes']} invokes in {len(s.usage['sessions'])} sessions, "
                     f"last {s.usage['last_use'] or '?'}: {', '.join(s.usage['sessions'][:5])}"
                     + (" …" if len(s.usage["sessions"]) > 5 else ""))
    return "\n".join(lines)
