"""Knowledge and workflows as Agent Skills: every record becomes `<folder>/<slug>/SKILL.md` in the
skill folders of the agents memcli serves, so each agent lists them natively (name and
description resident, the body read when it picks one) — docs/skills.md.

    sources.py   the records read: what each becomes, and why one cannot become a skill
    check.py     what the agents reject in a SKILL.md (sync never writes one; lint reports one)
    place.py     which agents, which folders (one folder shared by two agents is written once)
    render.py    a skill's files: SKILL.md, the agent-specific ones, the generated-by-memcli marker
    sync.py      `memcli skills sync`: the plan, written atomically; nothing when nothing changed
    report.py    what a sync did and what each agent lists, as text or JSON
    state.py     what the last sync wrote and each agent lists, kept in the state folder
    resident.py  the knowledge an agent already lists as skills (left out of `memcli context`)
    after.py     the calls from consolidation (and its commit), `hooks install` and `uninstall`

Built on memcli.agents (each agent's SKILLS folders and skills.py dialect) and the records' parser.
"""
