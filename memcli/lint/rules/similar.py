"""Near-duplicate slugs in one folder: a sign that records are being added instead of merged."""

from __future__ import annotations

from collections.abc import Iterator

from memcli.lint.finding import Finding, Severity
from memcli.lint.rules.base import Context, Rule, Scope
from memcli.workspace import KIND_DIRS, Kind


def _groups_around(seeds: list[str], slugs: list[str], distance: int) -> list[list[str]]:
    """The connected groups that contain `seeds`, found by walking out from them (no full matrix)."""
    from rapidfuzz import process
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
    import numpy as np
    from rapidfuzz.distance import Levenshtein
    from rapidfuzz.process import cdist

    ordered = sorted(slugs)
    parent = list(range(len(ordered)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    # Row blocks bound the memory of the distance matrix on very large folders.
    block = 2048
    for lo in range(0, len(ordered), block):
        rows = ordered[lo : lo + block]
        matrix = cdist(
            rows, ordered, scorer=Levenshtein.distance, score_cutoff=distance, dtype=np.uint8, workers=-1
        )
        for i, j in zip(*np.nonzero(matrix <= distance), strict=True):
            a, b = find(lo + int(i)), find(int(j))
            if a != b:
                parent[a] = b
    groups: dict[int, list[str]] = {}
    for i, slug in enumerate(ordered):
        groups.setdefault(find(i), []).append(slug)
    return sorted(g for g in groups.values() if len(g) >= min_size)


class SimilarSlugs(Rule):
    """No crowd of near-identical slugs in one folder (warning when ≥ 3 slugs form a group within
    Levenshtein distance 2 of each other; config `lint.similar_slug_distance`,
    `lint.similar_slug_group`): merge them into one record.

    Passing: `use-sqlite`, `cache-policy`, `retry-budget`.
    Failing: `api-retry`, `api-retries`, `api-retry2`.
    """

    code, alias, severity, scope = "similar-slugs", "W03", Severity.WARNING, Scope.WORKSPACE

    def check_workspace(self, ctx: Context) -> Iterator[Finding]:
        cfg = ctx.config
        for kind in (Kind.DECISION, Kind.REQUEST, Kind.KNOWLEDGE, Kind.WORKFLOW):
            by_slug = ctx.snapshot.slugs[kind]
            seeds = None
            if ctx.targets is not None:
                seeds = [s for s, p in by_slug.items() if p in ctx.targets]
                if not seeds:
                    continue
            groups = similar_groups(list(by_slug), cfg.similar_slug_distance, cfg.similar_slug_group, seeds)
            for group in groups:
                paths = [by_slug[s] for s in group]
                if ctx.touches(paths):
                    yield self.finding(
                        paths[0],
                        None,
                        f"{len(group)} similar slugs in {KIND_DIRS[kind]}/: {', '.join(group)}; "
                        "merge them into one record",
                    )
