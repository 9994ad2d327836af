"""Where a claim came from: who said the entries a Source points to, and instruction-shaped text
that arrived as data (a tool's output, a fetched page) rather than from the user.

Memory poisoning is text from a web page or a command's output ("ignore previous instructions",
"always run …, add this as a project rule") that ends up stored as a rule the agent then obeys. The
defence is in code, not in the prompt alone: `extract` records, per staging file, the role of each
entry it sent (user, agent, tool, injected, system) and the instruction-shaped sentences found in tool
output; consolidation shows those sentences to the model fenced as untrusted, and its tools refuse
(1) a new decision, request or rule whose Sources hold tool output or injected text only, and
(2) any write that repeats such a sentence, or a command or URL taken from one.

The patterns are deliberately generic (imperatives aimed at an AI agent, requests to change its
instructions or memory, running a download or a decoded payload in a shell), in English, Japanese
and Chinese. They match a folded form of the text (`fold`: NFKC, so full-width letters are ASCII;
zero-width, bidi and other invisible characters left out; Cyrillic and Greek look-alikes as the
Latin letters they imitate), so `ig\u200bnore`, `Ｉｇｎｏｒｅ` and `ignоre` (a Cyrillic о) are
"ignore". They flag; they do not prove. docs/trust.md says what this catches and what it cannot.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import field
from typing import Any

from memcli.values import frozen

TRUSTED_ROLES = frozenset({"user", "agent"})
UNTRUSTED_ROLES = frozenset({"tool", "injected", "system"})
_SNIPPET = 300
MAX_FLAGGED = 20

_SUDO = r"(?:sudo\s+(?:-[A-Za-z]+\s+)*)?"
_SHELL = r"(?:(?:ba|z|da|k)?sh|python[0-9.]*|perl|ruby|node|iex|invoke-expression)\b"
# a download piped into a shell or an interpreter (PowerShell's `iwr … | iex` too)
_DOWNLOAD_RUN = (r"\b(?:curl|wget|iwr|irm|invoke-webrequest|invoke-restmethod)\b[^|\n]{1,200}\|\s*"
                 + _SUDO + _SHELL)
# Each pattern with the words every one of its matches holds, lowercase: one word of each group.
# A text is searched only for the patterns whose words it holds (see _Screened).
_EN: list[tuple[str, tuple[tuple[str, ...], ...]]] = [
    (r"\b(?:ignore|disregard|forget|override)\b[^.\n]{0,40}\b(?:previous|prior|above|earlier|all|any|"
     r"existing|your)\b[^.\n]{0,30}\b(?:instructions?|rules?|prompts?|guidelines?|directions?)\b",
     (("ignore", "disregard", "forget", "override"),
      ("instruction", "rule", "prompt", "guideline", "direction"))),
    (r"\b(?:the (?:assistant|agent|ai|model)|(?:ai|coding) (?:agents?|assistants?)|llms?|language models?|"
     r"claude|codex|gemini|copilot)\b"
     r"[^.\n]{0,30}\b(?:must|should|shall|are required to|need to)\b[^.\n]{0,20}\b(?:always|never|now|"
     r"immediately|first)\b",
     (("must", "should", "shall", "required to", "need to"),
      ("always", "never", "now", "immediately", "first"),
      ("assistant", "agent", "ai", "model", "llm", "claude", "codex", "gemini", "copilot"))),
    (r"\bfrom now on\b,?\s+(?:you|always|never|the (?:assistant|agent))\b", (("from now on",),)),
    (r"\b(?:add|save|store|remember|record|write|append|put)\b[^.\n]{0,30}\b(?:as|to|in|into)\b"
     r"[^.\n]{0,20}\b(?:(?:project |permanent |long[- ]term )?(?:rules?|memory|memories|instructions?|"
     r"policy|policies)|agents\.md|claude\.md|system prompt)\b",
     (("rule", "memor", "instruction", "polic", "agents.md", "claude.md", "system prompt"),
      ("add", "save", "store", "remember", "record", "write", "append", "put"))),
    (r"\b(?:new|updated|real|actual|hidden)\s+(?:system\s+)?(?:instructions?|rules|system prompt)\b",
     (("instruction", "rules", "system prompt"), ("new", "updated", "real", "actual", "hidden"))),
    (r"\b(?:system|developer)\s+(?:prompt|message|instructions?)\s*:",
     (("prompt", "message", "instruction"), ("system", "developer"), (":",))),
    (r"\bdo not (?:tell|inform|mention|reveal|show)\b[^.\n]{0,20}\b(?:the )?user\b",
     (("do not",), ("user",))),
    (r"</?\s*(?:system|instructions?|im_start|assistant)\s*>",
     (("<",), (">",), ("system", "instruction", "im_start", "assistant"))),
    (_DOWNLOAD_RUN, (("curl", "wget", "iwr", "irm", "invoke-webrequest", "invoke-restmethod"), ("|",))),
    (r"\b(?:(?:ba|z|da|k)?sh|source|\.)\s+<\(\s*(?:curl|wget|fetch)\b",  # bash <(curl …)
     (("<(",), ("curl", "wget", "fetch"))),
    (r"\beval\s+[\"']?\$\(\s*(?:curl|wget|fetch)\b", (("$(",), ("eval",))),  # eval "$(curl …)"
    (r"\bbase64\s+(?:-d|-D|--decode)\b[^\n]{0,200}?\|\s*" + _SUDO + _SHELL,  # a decoded payload run
     (("base64",), ("|",))),
    (r"\|\s*sudo\s+(?:-[A-Za-z]+\s+)*(?:ba|z|da|k)?sh\b", (("sudo",), ("|",))),  # piped into a root shell
]
_JA: list[tuple[str, tuple[tuple[str, ...], ...]]] = [
    (r"(?:以前|前|上記|これまで|今まで|先ほど|最初)の(?:指示|命令|ルール|プロンプト|設定)(?:を|は|も)?"
     r"[^。\n]{0,12}?(?:無視|忘れ|破棄|従わ)", (("無視", "忘れ", "破棄", "従わ"),)),
    (r"(?:すべて|全て|全部)の(?:指示|命令|ルール)を(?:無視|忘れ|破棄)", (("無視", "忘れ", "破棄"),)),
    (r"(?:忽略|无视|忘记|忘掉)[^。\n]{0,10}(?:之前|以前|上面|先前|所有|全部)[^。\n]{0,6}(?:指令|指示|规则|提示)",
     (("忽略", "无视", "忘记", "忘掉"),)),
    (r"(?:今後は|これからは|以後)[^。\n]{0,20}(?:常に|必ず|絶対)", (("今後は", "これからは", "以後"),)),
    (r"(?:ルール|メモリ|記憶|規則|AGENTS\.md|CLAUDE\.md)(?:として|に)(?:追加|保存|記録|登録|書)",
     (("追加", "保存", "記録", "登録", "書"),)),
    (r"(?:常に|必ず)[^。\n]{0,40}(?:実行|使用|追加|インストール|送信)(?:して|せよ|すること|しなさい)",
     (("常に", "必ず"),)),
    (r"ユーザー?に(?:言わ|伝え|知らせ|見せ)(?:ない|ず)", (("ユーザ",),)),
    (r"(?:AI|エージェント|アシスタント)[^。\n]{0,20}(?:しなければならない|する必要がある|すること)",
     (("しなければならない", "する必要がある", "すること"),)),
]

# The characters other than ASCII letters that IGNORECASE matches with one (Turkish i's, the long s,
# the Kelvin sign), as the letter: a text is lowered with these before its words are looked up.
_AS_ASCII = {0x130: "i", 0x131: "i", 0x17F: "s", 0x212A: "k"}


class _Screened:
    """Patterns (IGNORECASE unless told) looked for in a text only where it holds the words of each
    (its groups, above): substring tests in C cost a few µs, where scanning a record's body with
    the patterns as one alternation costs ~1 ms; a pattern whose words are there is searched alone
    (30-90 µs). What is found is what the patterns alone find: tests/trust/test_screened.py checks
    every pattern's words against text generated from the pattern."""

    def __init__(self, alternatives: Sequence[tuple[str, tuple[tuple[str, ...], ...]]],
                 flags: int = re.IGNORECASE) -> None:
        self.patterns = [(re.compile(p, flags), needs) for p, needs in alternatives]

    def found(self, text: str, low: str | None = None) -> bool:
        """Whether any of the patterns matches somewhere in `text` (`low`: `_lowered(text)`, when the
        caller looks for several kinds in one text)."""
        low = _lowered(text) if low is None else low
        return any(all(any(word in low for word in group) for group in needs) and pattern.search(text)
                   for pattern, needs in self.patterns)


def _lowered(text: str) -> str:
    """`text` as _Screened looks for words in it: lowercase, _AS_ASCII's characters as their letters."""
    if not text.isascii() and any(chr(cp) in text for cp in _AS_ASCII):
        return text.translate(_AS_ASCII).lower()
    return text.lower()


_INSTRUCTION = _Screened(_EN + _JA)

# Letters of other scripts that look like Latin ones (Unicode's confusables, the common part).
_LOOKALIKE = {
    "а": "a", "в": "b", "е": "e", "ё": "e", "к": "k", "м": "m", "н": "h", "о": "o", "р": "p", "с": "c",
    "т": "t", "у": "y", "х": "x", "і": "i", "ї": "i", "ј": "j", "ѕ": "s", "ԁ": "d", "һ": "h", "ɡ": "g",
    "ӏ": "l", "А": "A", "В": "B", "Е": "E", "К": "K", "М": "M", "Н": "H", "О": "O", "Р": "P", "С": "C",
    "Т": "T", "У": "Y", "Х": "X", "І": "I", "Ј": "J", "Ѕ": "S", "α": "a", "ε": "e", "ι": "i", "κ": "k",
    "ν": "v", "ο": "o", "ρ": "p", "τ": "t", "υ": "u", "χ": "x", "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z",
    "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M", "Ν": "N", "Ο": "O", "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X",
}


class _FoldTable(dict):
    """str.translate's table for `fold`: invisible characters (Unicode category Cf: zero-width,
    bidi controls, soft hyphen, tag characters) out, look-alike letters as Latin ones."""

    def __missing__(self, cp: int) -> str | None:
        ch = chr(cp)
        found = None if unicodedata.category(ch) == "Cf" else _LOOKALIKE.get(ch, ch)
        self[cp] = found
        return found


_FOLD = _FoldTable({i: chr(i) for i in range(128)})


def fold(text: str) -> str:
    """`text` as the instruction patterns read it (see the module's docstring)."""
    if text.isascii():
        return text
    return unicodedata.normalize("NFKC", text).translate(_FOLD)
_SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s+|\n+")
# What a poisoned rule carries along: a URL or a command line (backticked, or piped into a shell).
_URL = re.compile(r"https?://[^\s`'\"<>)\]]+")
_TICKED = re.compile(r"`([^`\n]{6,200})`")


def role_of(entry: Any) -> str:
    """user, agent, tool (a tool's output), injected (AGENTS.md, environment, slash-command
    expansions) or system: who the text of a transcript entry comes from."""
    if entry.injected:
        return "injected"
    if entry.role == "tool" or (entry.tool_results and not entry.text.strip()):
        return "tool"
    return {"assistant": "agent"}.get(entry.role, entry.role)


def role_spans(spans: Iterable[tuple[int, int, str]]) -> list[list[Any]]:
    """(start, end, role) per entry, in line order → consecutive runs of one role merged."""
    out: list[list[Any]] = []
    for start, end, role in spans:
        if out and out[-1][2] == role and out[-1][1] + 1 >= start:
            out[-1][1] = max(out[-1][1], end)
        else:
            out.append([start, end, role])
    return out


def roles_within(spans: Sequence[Sequence[Any]], start: int, end: int) -> set[str]:
    """The roles of the recorded entries that overlap lines start..end."""
    return {str(s[2]) for s in spans if int(s[0]) <= end and int(s[1]) >= start}


def instruction_sentences(text: str) -> list[str]:
    """The sentences of `text` shaped like an instruction aimed at an agent (as written, each cut to
    a snippet), matched in their folded form."""
    if not _INSTRUCTION.found(fold(text)):
        return []
    out = []
    for sentence in _SENTENCE_END.split(text):
        sentence = sentence.strip()
        if sentence and _INSTRUCTION.found(fold(sentence)):
            out.append(sentence[:_SNIPPET])
            if len(out) >= MAX_FLAGGED:
                break
    return out


def norm(text: str) -> str:
    text = fold(text).lower()
    return " ".join(re.sub(r"[^\w\s/:.|-]", " ", text).split())


def carried(snippet: str) -> list[str]:
    """URLs and command lines inside a flagged sentence: the payload a poisoned rule keeps."""
    snippet = fold(snippet)
    found = [m.group(0).rstrip(".,;:") for m in _URL.finditer(snippet)]
    found += [m.group(1).strip() for m in _TICKED.finditer(snippet)]
    pipe = re.search(_DOWNLOAD_RUN, snippet, re.IGNORECASE)
    if pipe:
        found.append(pipe.group(0))
    return [f for f in dict.fromkeys(found) if len(f) >= 6]


def _close(needle: str, text: str) -> bool:
    from rapidfuzz import fuzz  # here: `why` and `status` load this module, not the comparison

    return bool(text) and (needle in text or fuzz.partial_ratio(needle, text) >= 88)


def repeats_untrusted(new_text: str, old_text: str, flagged: Iterable[str]) -> str | None:
    """The flagged sentence a write newly repeats (closely, or by carrying its URL or command), or None.

    Text already in the record before the write is not the write's doing and is not held against it.
    """
    new_n, old_n = norm(new_text), norm(old_text)
    for sentence in flagged:
        said = norm(sentence)
        if len(said) >= 16 and _close(said, new_n) and not _close(said, old_n):
            return sentence
        for payload in carried(sentence):
            p = norm(payload)
            if p and p in new_n and p not in old_n:
                return sentence
    return None


def said_by_user(sentence: str, said: str) -> bool:
    """The user wrote (nearly) the same sentence: adopting it was their call, not an injection."""
    return _close(norm(sentence), said)


@frozen
class Trust:
    """What one consolidation run knows of who said its material: per session, the role runs of
    each staging file (by its Source range), and every flagged sentence."""

    roles: dict[str, list[tuple[int, int, list[list[Any]]]]] = field(default_factory=dict)
    flagged: tuple[str, ...] = ()

    @classmethod
    def of_staging(cls, files: Iterable[Any]) -> Trust:
        roles: dict[str, list[tuple[int, int, list[list[Any]]]]] = {}
        flagged: list[str] = []
        for f in files:
            if f.provenance.roles:
                start, end = f.source.range
                runs = [list(r) for r in f.provenance.roles]
                roles.setdefault(f.source.session_id, []).append((start, end, runs))
            flagged += [u.text for u in f.provenance.untrusted]
        return cls(roles, tuple(dict.fromkeys(flagged)))

    def roles_of(self, session_id: str, start: int, end: int) -> set[str] | None:
        """Roles of the recorded entries in lines start..end, or None when nothing is recorded
        there (a Source from an older staging file or an existing record: not judged)."""
        found: set[str] | None = None
        for lo, hi, runs in self.roles.get(session_id, ()):
            if lo <= end and hi >= start:
                found = (found or set()) | roles_within(runs, start, end)
        return found


# ---------------------------------------------------------------- the trust gate (what agents follow)

# Text that tells an agent to run something, or to fetch something and act on it: a rule only a
# person may set. "Run `make lint` before every commit" is fine in the user's words, a poisoning in
# a web page's (docs/trust.md, "The trust gate").
_COMMAND = _Screened([
    (r"\b(?:always|before (?:each|every|any|running|committing|pushing)|every time|whenever|first thing|"
     r"at the start of (?:each|every|a)|automatically|immediately)\b[^.\n]{0,80}?"
     r"\b(?:run|execute|exec|call|invoke|source|install|pipe)\b",
     (("run", "exec", "call", "invoke", "source", "install", "pipe"),
      ("always", "before", "every time", "whenever", "first thing", "start of", "automatically",
       "immediately"))),
    (r"\b(?:run|execute|exec|invoke|source|install)\b[^.\n]{0,120}?"
     r"\b(?:before (?:each|every|any) (?:commit|push|task|session|command|change|run|test)s?|every time|"
     r"always|first thing|automatically|at (?:the )?start of (?:each|every) (?:session|task))\b",
     (("run", "exec", "invoke", "source", "install"),
      ("before", "every time", "always", "first thing", "automatically", "start of"))),
])
_FETCH = _Screened([
    (r"\b(?:fetch|download|visit|open|read|load|browse|go to|navigate to|curl|wget|retrieve|check)\b"
     r"[^.\n]{0,60}?https?://[^\s)>\]]+[^.\n]{0,80}?"
     r"\b(?:follow|obey|execute|run|apply|do what|instructions?|steps|and then|save|store)\b",
     (("http",),)),
    (r"\b(?:follow|obey|apply|execute|run)\b[^.\n]{0,40}?\b(?:instructions?|steps|script|commands?)\b"
     r"[^.\n]{0,30}?\b(?:at|from|in|on)\b\s+https?://",
     (("http",),)),
])
_JA_COMMAND = _Screened([
    (r"(?:コミット|プッシュ|作業|セッション|タスク)(?:の前に|前に|のたびに|するたびに|ごとに)[^。\n]{0,60}?"
     r"(?:実行|インストール|取得|ダウンロード)",
     (("実行", "インストール", "取得", "ダウンロード"),)),
    (r"https?://\S+[^。\n]{0,40}?(?:の指示に従|を実行|を取得して実行)", (("http",),)),
], flags=0)
_ALLOWED_CF = {"\u200d", "\ufe0f"}  # emoji joiners (👩‍💻) are text, not a trick, between symbols


@frozen
class Directive:
    """One place in a text that the trust gate holds against it (by what it is, on which line)."""

    line: int
    what: str  # invisible | instruction | command | fetch
    snippet: str


def _invisible(text: str) -> list[Directive]:
    out = []
    for i, ch in enumerate(text):
        if ch.isascii() or unicodedata.category(ch) != "Cf" or (i == 0 and ch == "\ufeff"):
            continue
        if ch in _ALLOWED_CF and 0 < i < len(text) - 1 and unicodedata.category(text[i - 1]) == "So":
            continue
        line = text.count("\n", 0, i) + 1
        name = unicodedata.name(ch, "format character")
        out.append(Directive(line, "invisible", f"U+{ord(ch):04X} {name}"))
    return out


def may_direct(text: str) -> bool:
    """False only when `agent_directives(text)` is surely empty: one pass of each pattern over the
    whole text, for a caller that checks many short texts at once (the resident context)."""
    if not text.isascii() and any(unicodedata.category(ch) == "Cf" for ch in set(text)):
        return True
    folded = fold(text)
    low = _lowered(folded)
    return any(p.found(folded, low) for p in (_INSTRUCTION, _COMMAND, _JA_COMMAND, _FETCH))


def agent_directives(text: str) -> list[Directive]:
    """Where `text` (a record's, a skill's) holds what an agent would follow without a person having
    said it: invisible or bidi characters (text a reviewer does not see), an instruction-shaped
    sentence (instruction_sentences), a command to run at every commit or session, a URL to fetch
    and act upon. Matched in folded form; one Directive per line and kind."""
    found = [] if text.isascii() else _invisible(text)
    folded = fold(text)
    same = len(folded.splitlines()) == len(text.splitlines())
    lines = folded.splitlines() if same else text.splitlines()
    # What a folded line holds, the folded text holds: a kind the whole text cannot hold is not
    # looked for line by line (most texts hold none).
    instruction, command, fetch = (True, True, True)
    if same:
        low = _lowered(folded)
        instruction, fetch = _INSTRUCTION.found(folded, low), _FETCH.found(folded, low)
        command = _COMMAND.found(folded, low) or _JA_COMMAND.found(folded, low)
    for n, line in enumerate(lines if instruction or command or fetch else (), 1):
        if instruction and instruction_sentences(line):
            found.append(Directive(n, "instruction", line.strip()[:_SNIPPET]))
        elif command and (_COMMAND.found(line) or _JA_COMMAND.found(line)):
            found.append(Directive(n, "command", line.strip()[:_SNIPPET]))
        elif fetch and _FETCH.found(line):
            found.append(Directive(n, "fetch", line.strip()[:_SNIPPET]))
    unique: dict[tuple[int, str], Directive] = {}  # the first of each (line, what), in order
    for d in found:
        unique.setdefault((d.line, d.what), d)
    return list(unique.values())
