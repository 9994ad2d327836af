"""Whole-workspace rules over references between records (`replaced_by`, `requires`).

They always look at every record, not only the changed ones, so deleting or renaming a record
that another one names is caught on every path (tool, commit, CI).
"""

from __future__ import annotations

from collections.abc import Iterator

from memcli.lint.finding import Finding, Severity
from memcli.lint.rules.base import Context, Rule, Scope
from memcli.lint.snapshot import Snapshot
from memcli.workspace import Kind


def _replaced_graph(snapshot: Snapshot) -> dict[str, tuple[str, str, int | None]]:
    """decision slug → (replaced_by slug, path, line), for every decision that names one."""
    return snapshot.memo("replaced_graph", lambda: _build_replaced_graph(snapshot))


def _build_replaced_graph(snapshot: Snapshot) -> dict[str, tuple[str, str, int | None]]:
    graph: dict[str, tuple[str, str, int | None]] = {}
    for slug, path, facts in snapshot.facts_with(Kind.DECISION, b"replaced_by"):
        if facts.replaced_by is not None:
            graph[slug] = (facts.replaced_by, path, facts.replaced_by_line)
    return graph


class DanglingReference(Rule):
    """`replaced_by` names an existing decision; each `requires` entry of a workflow names an
    existing record. Checked over the whole workspace on every path.

    Why: deleting or renaming a record that another one names would leave a broken link; because
    this rule always sees the whole workspace, such a deletion fails the commit even though the
    deleted file is not among the files passed to the hook.

    Passing: `replaced_by: use-postgres` with `memory/decisions/use-postgres.md` present.
    Failing: the same after `use-postgres.md` was deleted or renamed.
    """

    code, alias, severity, scope = "dangling-reference", "E07", Severity.ERROR, Scope.WORKSPACE

    def check_workspace(self, ctx: Context) -> Iterator[Finding]:
        snap = ctx.snapshot
        decisions = snap.slugs[Kind.DECISION]
        for _, (target, path, line) in sorted(_replaced_graph(snap).items()):
            if target not in decisions:
                yield self.finding(
                    path,
                    line,
                    f"replaced_by names {target!r}, but memory/decisions/{target}.md does not exist; "
                    "fix the slug or restore that decision",
                    "replaced_by",
                )
        everything = snap.all_slugs()
        for _, path, facts in snap.facts_with(Kind.WORKFLOW, b"requires"):
            for name in facts.requires or ():
                if name not in everything:
                    yield self.finding(
                        path,
                        facts.requires_line,
                        f"requires names {name!r}, but no record has that slug; fix it or remove it",
                        "requires",
                    )


def _cycles(graph: dict[str, tuple[str, str, int | None]]) -> list[list[str]]:
    cycles: list[list[str]] = []
    state: dict[str, int] = {}  # 1 = on the current walk, 2 = done
    for start in sorted(graph):
        walk: list[str] = []
        node: str | None = start
        while node is not None and node in graph and state.get(node) is None:
            state[node] = 1
            walk.append(node)
            node = graph[node][0]
        if node is not None and state.get(node) == 1:
            cycles.append(walk[walk.index(node) :])
        for n in walk:
            state[n] = 2
    return cycles


class ReplacedByCycle(Rule):
    """Following `replaced_by` never comes back to where it started. One finding per decision in
    the loop, each naming the whole loop.

    Why: in a loop no decision is the current one, so readers and tools cannot tell what holds.

    Passing: a → b → c, with c open or resolved.
    Failing: a → b → c → a, or a → a.
    """

    code, alias, severity, scope = "replaced-by-cycle", "E08", Severity.ERROR, Scope.WORKSPACE

    def check_workspace(self, ctx: Context) -> Iterator[Finding]:
        graph = _replaced_graph(ctx.snapshot)
        for cycle in _cycles(graph):
            loop = " → ".join([*cycle, cycle[0]])
            for slug in cycle:
                _, path, line = graph[slug]
                what = (
                    "replaced_by points to the decision itself"
                    if len(cycle) == 1
                    else f"replaced_by loop {loop}"
                )
                yield self.finding(
                    path, line, f"{what}; the newest decision must not be replaced", "replaced_by"
                )


class ReplacedChainLong(Rule):
    """Warning: a `replaced_by` chain of 3 or more hops (config `lint.replaced_chain_hops`),
    reported on the decision the chain starts from.

    Why: long chains are history nobody reads; fold it into the newest decision (GC material).

    Passing: v1 → v2 → v3 (two hops).
    Failing: v1 → v2 → v3 → v4.
    """

    code, alias, severity, scope = "replaced-chain-long", "W04", Severity.WARNING, Scope.WORKSPACE

    def check_workspace(self, ctx: Context) -> Iterator[Finding]:
        graph = _replaced_graph(ctx.snapshot)
        pointed = {target for target, _, _ in graph.values()}
        decisions = ctx.snapshot.slugs[Kind.DECISION]
        for head in sorted(set(graph) - pointed):  # chain starts: nobody replaces into them
            chain = [head]
            # Stop where the chain ends or runs into a loop (replaced-by-cycle reports the loop).
            while chain[-1] in graph and graph[chain[-1]][0] not in chain:
                chain.append(graph[chain[-1]][0])
            hops = len(chain) - 1
            if hops >= ctx.config.replaced_chain_hops and ctx.touches(
                [decisions[s] for s in chain if s in decisions]
            ):
                _, path, line = graph[head]
                yield self.finding(
                    path,
                    line,
                    f"replaced_by chain of {hops} hops ({' → '.join(chain)}); fold the history into "
                    f"{chain[-1]!r} and drop the old links",
                    "replaced_by",
                )
