"""Near-duplicate slugs in one folder: a sign that records are being added instead of merged."""

from __future__ import annotations

from collections.abc import Iterator

from memcli.lint.finding import Finding, Severity
from memcli.lint.rules.base import Context, Rule, Scope
from memcli.workspace import KIND_DIRS, Kind


def _groups_around(seeds: list[str], slugs: list[str], distance: int) -> list[list[str]]:
    """The connected groups that contain `seeds`, found by walking out from them (no full matrix)."""
    from rapidfuzz import process  # here: the commit hook compares only new slugs
    from rapidfuzz.distance import Levenshtein

    seen: set[str] = set()
    groups = []
    for seed in seeds:
        if seed in seen:
            continue
        group, todo = {seed}, [seed]
        while todo:
            current = todo.pop()
            for match, _, _ in process.extract(
                current, slugs, scorer=Levenshtein.distance, score_cutoff=distance, limit=None
            ):
                if match not in group:
                    group.add(match)
                    todo.append(match)
        seen |= group
        groups.append(sorted(group))
    return groups


def similar_groups(
    slugs: list[str], distance: int, min_size: int, seeds: list[str] | None = None
) -> list[list[str]]:
    """Connected groups (Levenshtein ≤ `distance`) of at least `min_size` slugs, each sorted;
    only those containing one of `seeds` when given."""
    if len(slugs) < min_size:
        return []
    if seeds is not None:
        return sorted(g for g in _groups_around(seeds, slugs, distance) if len(g) >= min_size)
    # here: rapidfuzz only when the rule compares every slug (the commit hook's warm lint never does)
    from rapidfuzz import process
    from rapidfuzz.distance import Levenshtein

    ordered = sorted(slugs, key=lambda x: (len(x), x))
    parent = list(range(len(ordered)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    # Two slugs within distance d differ in length by at most d, so each slug is compared only
    # with the later slugs up to d longer: a fraction of the n×n pairs on a large folder. (One
    # `process.extract` per slug rather than `process.cdist`, which would need numpy: 73 MB in
    # the hook environment for one cached whole-folder check.)
    starts: dict[int, int] = {}
    for i, slug in enumerate(ordered):
        starts.setdefault(len(slug), i)
    bounds = sorted(starts.items())
    for k, (length, lo) in enumerate(bounds):
        hi = bounds[k + 1][1] if k + 1 < len(bounds) else len(ordered)
        far = next((start for ln, start in bounds[k:] if ln > length + distance), len(ordered))
        for i in range(lo, hi):
            for _, _, j in process.extract(ordered[i], ordered[i + 1:far], scorer=Levenshtein.distance,
                                           score_cutoff=distance, limit=None):
                a, b = find(i), find(i + 1 + j)
                if a != b:
                    parent[a] = b
    groups: dict[int, list[str]] = {}
    for i, slug in enumerate(ordered):
        groups.setdefault(find(i), []).append(slug)
    return sorted(sorted(g) for g in groups.values() if len(g) >= min_size)


def _listed(group: list[str], limit: int = 12) -> str:
    shown = ", ".join(group[:limit])
    return shown if len(group) <= limit else f"{shown} and {len(group) - limit} more"


def _groups(ctx: Context, slugs: list[str], seeds: list[str] | None) -> list[list[str]]:
    """`similar_groups`, remembered in the result cache for a whole folder (the costly case)."""
    cfg = ctx.config
    cache = ctx.snapshot.cache if not ctx.snapshot.overlay else None
    if seeds is not None or cache is None:
        return similar_groups(slugs, cfg.similar_slug_distance, cfg.similar_slug_group, seeds)
    inputs = "\n".join(sorted(slugs)).encode()
    found = cache.derived("similar-slugs", inputs)
    if isinstance(found, list):
        return [list(g) for g in found]
    groups = similar_groups(slugs, cfg.similar_slug_distance, cfg.similar_slug_group)
    cache.put_derived("similar-slugs", inputs, [tuple(g) for g in groups])
    return groups


class SimilarSlugs(Rule):
    """Warning: 3 or more slugs in one record folder form a connected group within Levenshtein
    distance 2 of each other (config `lint.similar_slug_distance`, `lint.similar_slug_group`).

    Why: a crowd of near-identical names means records are being added instead of merged. On the
    commit and tool paths only groups containing a changed file are reported, on that file.

    Passing: `api-retry`, `api-retries`, `cache` (only two within distance 2).
    Failing: `api-retry`, `api-retry2`, `api-retrys`.
    """

    code, alias, severity, scope = "similar-slugs", "W03", Severity.WARNING, Scope.WORKSPACE

    def check_workspace(self, ctx: Context) -> Iterator[Finding]:
        for kind in (Kind.DECISION, Kind.REQUEST, Kind.KNOWLEDGE, Kind.WORKFLOW):
            by_slug = ctx.snapshot.slugs[kind]
            seeds = None
            if ctx.targets is not None:
                seeds = [s for s, p in by_slug.items() if p in ctx.targets]
                if not seeds:
                    continue
            groups = _groups(ctx, list(by_slug), seeds)
            for group in groups:
                paths = [by_slug[s] for s in group]
                if ctx.touches(paths):
                    # Reported on a changed file when there is one, so the commit / tool path shows it.
                    touched = [p for p in paths if ctx.targets is not None and p in ctx.targets]
                    yield self.finding(
                        (touched or paths)[0],
                        None,
                        f"{len(group)} similar slugs in {KIND_DIRS[kind]}/: {_listed(group)}; "
                        "merge them into one record",
                    )
