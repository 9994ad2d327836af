"""Near-duplicate directives across sessions: which statements say the same thing.

Two statements are the same instruction when their feature vectors (features.py, each weight
multiplied by the feature's idf over this history's directives, so "use" counts for little and
"pnpm" for a lot) have a cosine of at least `SAME` and (`Weights.related`)

* they share a content feature that is not only an action ("always use tabs" / "always use
  spaces" share only function words, "delete js" / "remove lines 2 and 3" only an action);
* no contrast separates them (lexicon.CONTRASTS: English / Japanese, tabs / spaces, …);
* where both name code, neither names code the other does not mention ("mock `RepoMap`" / "mock
  `GitRepo`"); where only one does, the cosine must reach `SAME_EXTRA_CODE`;
* worded in one language, they share a content word; and the most distinctive content feature of
  one is in the other ("use pnpm" / "use yarn").

With an embedding model, vectors at cosine `SAME_MEANING` or more join too, unless a contrast or
the code rule separates them (`Weights.compatible`). Statements joined by pairs form a group
(single linkage); a group said in two or more sessions is a repetition. Candidate pairs come from
an inverted index over the features, so the cost grows with the pairs that share a rare feature,
not with the square of the statements. docs/eval.md has the figures.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Sequence

from memcli.eval import lexicon
from memcli.eval.features import CJK, CODE, WORD, Features, word_id
from memcli.eval.statements import Statement
from memcli.values import frozen

SAME = 0.35  # chosen on the even seeds of the generated histories (bench/eval_quality.py, docs/eval.md)
SAME_MEANING = 0.85  # cosine of two embedding vectors; not tuned (no model here): see docs/eval.md
SAME_EXTRA_CODE = 0.7  # when one of the two names code the other does not mention
POSTING_CAP = 400  # features shared by more statements than this only add to pairs found otherwise


class Weights:
    """Feature weights of one history: base weight × idf over its directive statements."""

    def __init__(self, documents: Sequence[Features]) -> None:
        df: dict[str, int] = defaultdict(int)
        for doc in documents:
            for feature in doc.weights:
                df[feature] += 1
        n = len(documents)
        self.df = dict(df)
        self.idf = {f: math.log((n + 1) / (d + 1)) + 1.0 for f, d in df.items()}
        self.idf_unseen = math.log(n + 1) + 1.0
        self.function = lexicon.function_concepts()

    def vector(self, doc: Features) -> dict[str, float]:
        unseen = self.idf_unseen
        return {f: w * self.idf.get(f, unseen) for f, w in doc.weights.items()}

    @staticmethod
    def norm(vec: dict[str, float]) -> float:
        return math.sqrt(sum(w * w for w in vec.values())) or 1.0

    def compatible(self, a: Features, b: Features) -> bool:
        """Nothing rules out that the two are one instruction: no contrast ("English" / "Japanese")
        between them, and where both name code, they name enough of the same code."""
        for x, y in lexicon.CONTRASTS:
            if (x in a.weights and y in b.weights and y not in a.weights and x not in b.weights) or \
                    (y in a.weights and x in b.weights and x not in a.weights and y not in b.weights):
                return False
        return not (unmentioned(a, b) and unmentioned(b, a))

    def related(self, a: Features, b: Features, score: float) -> bool:
        """Whether two statements `score` alike can be one instruction (the module's rules)."""
        shared = a.weights.keys() & b.weights.keys()
        if not any(f not in self.function and f not in lexicon.ACTIONS for f in shared):
            return False  # only "always", "use", "not" or an action in common: about different things
        if not self.compatible(a, b):
            return False
        if score < SAME_EXTRA_CODE and (unmentioned(a, b) or unmentioned(b, a)):
            return False
        words_a, words_b = self._words(a), self._words(b)
        if words_a and words_b and not words_a & words_b and _japanese(a) == _japanese(b):
            return False  # worded differently in one language (across two, the glossary is too thin)
        return self._top(a) in b.weights or self._top(b) in a.weights

    def _words(self, doc: Features) -> set[str]:
        """Content words as written (no code, no Japanese bigram: those never match across languages)."""
        return {f for f, w in doc.weights.items() if w == WORD and f not in self.function}

    def _top(self, doc: Features) -> str | None:
        """The statement's most distinctive content feature (the highest weight × idf)."""
        vec = self.vector(doc)
        content = [(w, f) for f, w in vec.items() if f not in self.function]
        # a Japanese bigram cannot be in an English wording of the same instruction: rank words
        latin = [(w, f) for w, f in content if doc.weights[f] != CJK]
        return max(latin or content)[1] if content else None



def _japanese(doc: Features) -> bool:
    return any(w == CJK for w in doc.weights.values())


def unmentioned(a: Features, b: Features) -> list[str]:
    """The code `a` names that `b` does not mention: neither the identifier nor more than half of
    its words (`app.log.logger` is mentioned by "`logger` from `app.log`", `ruff format` is not
    by "`black format`")."""
    known = set(b.weights) | {p for f, w in b.weights.items() if w >= CODE for p in f.split("_")}
    out = []
    for f, w in a.weights.items():
        if w < CODE or f in known:
            continue
        parts = [p for p in f.split("_") if p]
        if sum(1 for p in parts if p in known or word_id(p) in known) * 2 <= len(parts):
            out.append(f)
    return out


@frozen
class Pair:
    a: int
    b: int
    score: float


def similar_pairs(statements: Sequence[Statement], weights: Weights, threshold: float = SAME) -> list[Pair]:
    """Pairs of statements (a < b) at or above `threshold`, lexically."""
    vectors = [weights.vector(s.features) for s in statements]
    norms = [Weights.norm(v) for v in vectors]
    postings: dict[str, list[int]] = defaultdict(list)
    out: list[Pair] = []
    for i, vec in enumerate(vectors):
        dots: dict[int, float] = defaultdict(float)
        for feature, w in vec.items():
            seen = postings[feature]
            if len(seen) <= POSTING_CAP:
                for j in seen:
                    dots[j] += w * vectors[j][feature]
            seen.append(i)
        for j in dots:
            dot = sum(w * vectors[j].get(f, 0.0) for f, w in vec.items())
            score = dot / (norms[i] * norms[j])
            if score >= threshold and weights.related(statements[i].features, statements[j].features, score):
                out.append(Pair(j, i, score))
    return out


def groups(n: int, pairs: Sequence[Pair], session_of: Callable[[int], int]) -> list[list[int]]:
    """Statements joined by pairs (single linkage), only groups said in two or more sessions, each
    in statement order, groups in order of their first statement."""
    parent = list(range(n))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for pair in pairs:
        ra, rb = find(pair.a), find(pair.b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    members: dict[int, list[int]] = defaultdict(list)
    for i in range(n):
        members[find(i)].append(i)
    found = [m for m in members.values() if len({session_of(i) for i in m}) >= 2]
    return sorted(found, key=lambda m: m[0])


def medoid(members: Sequence[int], statements: Sequence[Statement], weights: Weights) -> int:
    """The member most like the others: the group's wording in reports and staging."""
    if len(members) <= 2:
        return members[-1]  # the later wording: the user's latest say on it
    vecs = {i: weights.vector(statements[i].features) for i in members}
    norms = {i: Weights.norm(v) for i, v in vecs.items()}

    def total(i: int) -> float:
        return sum(sum(w * vecs[j].get(f, 0.0) for f, w in vecs[i].items()) / (norms[i] * norms[j])
                   for j in members if j != i)

    return max(members, key=lambda i: (total(i), i))
