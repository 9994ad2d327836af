"""Japanese, Chinese and Korean text: indexed as overlapping bigrams, queried as independent terms.

A record's CJK run is stored as its overlapping bigrams (日本語 → 日本 本語), so any substring of two
or more characters can be found without a dictionary. A query is usually a sentence
(連休中に本番デプロイしてもいい？): searched as one exact phrase it would only find a record that
contains the whole sentence. So a query run is cut where the script changes (kanji, katakana,
hiragana, hangul) and each kanji/katakana/hangul piece gives its bigrams as separate terms
(連休 休中 本番 デプ プロ ロイ); hiragana pieces are particles and inflections (に, してもいい) and are
dropped unless the run has nothing else. Records are then ranked by how many of those terms they
hold, with a bonus for terms side by side (rank.py), and records holding the whole run on top.

docs/notes/search-studies.md compares this with a morphological analyser (measured by bench/search_cjk.py).
"""

from __future__ import annotations

from itertools import groupby

CJK_CHARS = (
    "\u3005-\u3007"  # 々 〆 〇
    "\u3040-\u30ff"  # hiragana, katakana (incl. ー)
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"  # CJK ideographs
    "\uac00-\ud7af"  # hangul syllables
)


def bigrams(run: str) -> list[str]:
    if len(run) < 2:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)]


def _script(ch: str) -> str:
    if "\u3040" <= ch <= "\u309f":
        return "hiragana"
    if "\u30a0" <= ch <= "\u30ff":
        return "katakana"
    if "\uac00" <= ch <= "\ud7af":
        return "hangul"
    return "han"


def pieces(run: str) -> list[str]:
    """The run cut where the script changes, hiragana pieces left out (unless there is nothing else).

    ー and 々 belong to the piece before them (データ, 人々), so they never start a piece of their own.
    """
    out: list[str] = []
    kinds: list[str] = []
    for kind, chars in groupby(run, _script):
        text = "".join(chars)
        if out and (text[0] in "ー々" or kinds[-1] == kind):
            out[-1] += text
        else:
            out.append(text)
            kinds.append(kind)
    content = [p for p, k in zip(out, kinds, strict=True) if k != "hiragana"]
    return content or out


def query_terms(run: str) -> list[list[str]]:
    """The groups a query's CJK run is searched by: each bigram of each content piece on its own. A
    one-character piece followed by hiragana is searched with that kana (見せる → 見せ, the stem of
    a verb or adjective and its ending); otherwise it is a prefix group (本 finds 本番)."""
    groups: list[list[str]] = []
    at = 0
    for piece in pieces(run):
        at = run.index(piece, at) + len(piece)
        if len(piece) == 1 and at < len(run) and _script(run[at]) == "hiragana" and _script(piece) == "han":
            groups.append([piece + run[at]])
        else:
            groups.extend([b] for b in bigrams(piece))
    return groups
