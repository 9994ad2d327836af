"""Codex CLI's Agent Skills dialect, checked against 0.171.0 (codex-rs core-skills: loader.rs,
render.rs; and runs against a scripted model: tests/e2e/test_skills.py).

It reads `.agents/skills/<name>/SKILL.md` in every folder from the project root down to the working
folder, and `.codex/skills/` (the project's config folder); at home `~/.agents/skills/` and
`$CODEX_HOME/skills/` (its own system skills in `.system/`). A skill's `agents/openai.yaml` with
`policy: allow_implicit_invocation: false` keeps it out of the model's listing: only `$name` runs
it. It has no way to hide a skill from the user.

Its listing (a developer message, `<skills_instructions>`) is capped at 2% of the model's context
window in tokens (about 4 bytes each; 8 000 characters when the window is unknown): system skills
first, then the project's, then the user's, by name. Over the cap every description is shortened
alike; when even the names and paths do not fit, descriptions are dropped and the skills that no
longer fit are left out. Over the cap it also tries short paths (`r0/<name>/SKILL.md`, each folder
named once in a table that is paid from the cap) and keeps whichever lists more. The window is
the config's `model_context_window`, else the model's own: memcli reads the former and otherwise
assumes 272 000 tokens, what 0.171 uses for a model it has no metadata for.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from memcli.agents.codex.discovery import home
from memcli.agents.parts import Listed, Listing, SkillDialect, folder_skills, skill_stamps

DEFAULT_WINDOW = 272_000
PERCENT = 2
POLICY = "agents/openai.yaml"
# tokens its wording for short paths saves over the one for absolute paths, which the table of
# aliases costs less: measured on 0.171.0 with 200 skills under a 600-token cap, where the table
# cost 6 tokens at 180 and at 182 bytes (the edge fell between two skills), and the cut moved
# with the table at three project depths (tests/e2e/test_skills.py). Its cost is the difference
# of two whole renderings' token counts, so this is right to within a token.
ALIAS_WORDING_SAVES = 40
EXPLICIT_ONLY = "policy:\n  allow_implicit_invocation: false\n"


def fields(model: bool, user: bool) -> dict[str, object]:
    return {}


def files(model: bool, user: bool) -> dict[str, str]:
    return {} if model else {POLICY: EXPLICIT_ONLY}


def window(root: Path) -> int:
    """`model_context_window` from the project's `.codex/config.toml`, else `$CODEX_HOME`'s."""
    for path in (root / ".codex" / "config.toml", home() / "config.toml"):
        try:
            value = tomllib.loads(path.read_text(encoding="utf-8")).get("model_context_window")
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
            continue
        if isinstance(value, int) and value > 0:
            return value
    return DEFAULT_WINDOW


def _tokens(text: str) -> int:
    return (len(text.encode("utf-8")) + 3) // 4  # its approx_token_count


def _line(name: str, description: str, path: str) -> str:
    return f"- {name}: {description} (file: {path})" if description else f"- {name}: (file: {path})"


def _listed(folder: Path, skip: set[Path] = frozenset()) -> list[Listed]:  # type: ignore[assignment]
    """The skills of a folder it shows the model: not those kept to explicit use."""
    return [s for s in folder_skills(folder, skip)
            if not (s.path.parent / POLICY).is_file()
            or "allow_implicit_invocation: false" not in (s.path.parent / POLICY).read_text(errors="replace")]


def _folders(root: Path) -> tuple[Path, Path, Path, Path, Path]:
    """Where its skills are: system, the project's two, the user's two."""
    return (home() / "skills" / ".system", root / ".agents" / "skills", root / ".codex" / "skills",
            Path.home() / ".agents" / "skills", home() / "skills")


def inputs(root: Path) -> str:
    return f"{window(root)}\n{skill_stamps(_folders(root), ('SKILL.md', POLICY))}"


def listing(skills: list[Listed], root: Path) -> Listing:
    """It renders the listing with absolute paths; unless that fits whole, also with each skill
    folder named once in a table (`r0` = its path) and the paths shortened to `r0/<name>/SKILL.md`,
    the table paid from the cap, and keeps the one that lists more (then cuts fewer characters)."""
    budget = window(root) * PERCENT // 100
    rule = f"{PERCENT}% of the model's context window: {budget:,} tokens"
    ours = {s.path for s in skills}
    system_dir, agents_dir, codex_dir, user_agents, user_codex = _folders(root)
    system = _listed(system_dir)
    project = [*skills, *_listed(agents_dir, ours), *_listed(codex_dir, ours)]
    user = _listed(user_agents) + _listed(user_codex)
    ordered = [*sorted(system), *sorted(project), *sorted(user)]
    names = {s.name for s in skills}
    seen, kept, cut = _render(ordered, [s.path.as_posix() for s in ordered], budget, names)
    if kept < len(ordered) or cut:
        paths, table = _aliases(ordered)
        if table < budget:
            aliased = _render(ordered, paths, budget - table, names)
            if (aliased[1], -aliased[2]) >= (kept, -cut):
                seen = aliased[0]
    return seen._replace(rule=rule)


def _aliases(ordered: list[Listed]) -> tuple[list[str], int]:
    """The short paths, and what the table of aliases costs: its lines, less what its wording for
    short paths saves over the one for absolute paths."""
    roots = list(dict.fromkeys(s.path.parent.parent for s in ordered))
    alias = {r: f"r{i}" for i, r in enumerate(roots)}
    paths = [f"{alias[s.path.parent.parent]}/{s.path.parent.name}/SKILL.md" for s in ordered]
    table = "\n### Skill roots" + "".join(f"\n- `{alias[r]}` = `{r.as_posix()}`" for r in roots)
    return paths, max(0, _tokens(table + "\n") - ALIAS_WORDING_SAVES)


def _render(ordered: list[Listed], paths: list[str], budget: int,
            names: set[str]) -> tuple[Listing, int, int]:
    """(what it shows of `names`, how many skills it lists, how many description characters it cuts)."""
    full = [_tokens(_line(s.name, s.description, p) + "\n") for s, p in zip(ordered, paths, strict=True)]
    if sum(full) <= budget:
        return Listing(), len(ordered), 0
    least = [_tokens(_line(s.name, "", p) + "\n") for s, p in zip(ordered, paths, strict=True)]
    if sum(least) <= budget:
        cut = _cut(ordered, paths, least, budget - sum(least))
        shortened = tuple(s.name for s in ordered if s.name in names and len(s.description) > cut)
        return (Listing(shortened=shortened), len(ordered),
                sum(max(0, len(s.description) - cut) for s in ordered))
    bare: list[str] = []
    omitted: list[str] = []
    used, kept = 0, 0
    for skill, cost in zip(ordered, least, strict=True):
        fits = used + cost <= budget  # it goes on past one that does not fit
        used, kept = (used + cost, kept + 1) if fits else (used, kept)
        if skill.name in names:
            (bare if fits else omitted).append(skill.name)
    return Listing(bare=tuple(bare), omitted=tuple(omitted)), kept, sum(len(s.description) for s in ordered)


def _cut(ordered: list[Listed], paths: list[str], least: list[int], room: int) -> int:
    """The description length it shortens every description to (it hands out one character at a
    time to each in turn while the tokens last): the largest that fits `room`."""
    def extra(length: int) -> int:
        return sum(_tokens(_line(s.name, s.description[:length], p) + "\n") - low
                   for s, p, low in zip(ordered, paths, least, strict=True))

    low, high = 0, max((len(s.description) for s in ordered), default=0)
    while low < high:
        mid = (low + high + 1) // 2
        low, high = (mid, high) if extra(mid) <= room else (low, mid - 1)
    return low


DIALECT = SkillDialect(fields, files, listing, inputs)
