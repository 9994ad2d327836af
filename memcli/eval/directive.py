"""Which user statements are instructions, corrections or preferences — general rules, no model.

A statement is one sentence of a prompt the user typed (statements.py). It is a **directive** when
it has the shape of one, in English or Japanese, and is about something (features.py: at least one
content feature, so "thanks", "continue", "do it again" and 「続けて」 never are):

* correction: starts with no / nope / wrong / "I said" / "I mean", or says instead (of), rather
  than, "X, not Y"; いや / 違う / そうじゃなく at the start, じゃなく(て), ではなく, 代わりに;
* preference: I prefer / I'd rather / I like / I want, prefer, "we use …", "X is better"; 好み, 好き,
  方がいい, 優先, 推奨;
* instruction: a bare imperative (the first word a base-form verb: "use", "add", "run", … — also
  after a leading "before/when/if …," clause; one asking to be shown or told something, "show
  tools", "explain this", only with a condition saying when); don't, never, always, must, should, make sure,
  remember to, please, from now on, every time, avoid, "… needs …"; "can/could/would you …?";
  〜して(ください/ね), 〜しないで, 〜を使って, 〜すること, 〜しないこと, 〜ように, 必ず, 常に, いつも,
  毎回, 今後, 禁止, べき, お願い, しろ / せよ / なさい.

Questions ("why did you use npm?", 「どうしてnpm？」) are not directives unless they are polite
requests ("could you …?", "… please?", 「〜してくれますか？」). "I don't know / think / see …" is
the user talking about themselves, not a rule. A leading `/command` (an agent's slash command) is
dropped: `/undo` is nothing, `/orchestrator create a TODO app` is "create a TODO app".
"""

from __future__ import annotations

import re

CORRECTION = "correction"
PREFERENCE = "preference"
INSTRUCTION = "instruction"

_LEAD = re.compile(r"^(?:(?:ok(?:ay)?|yes|yeah|also|and|but|so|now|then|hey|actually|again|alright|right|"
                   r"well|oh|ah|hmm|sorry|btw|one more thing|by the way|just|only)\b[\s,.!:;-]*)+",
                   re.IGNORECASE)
_SLASH = re.compile(r"^/[\w:.-]+\s*")

_CORRECTION_EN = re.compile(
    r"^(?:no(?! need)|nope|wrong|not like that|that'?s (?:not|wrong|incorrect)|"
    r"i (?:said|told you|meant|mean))\b"
    r"|\binstead\b|\brather than\b|,\s*not\s+\S|\bnot\s+\S+\s*,?\s*but\b", re.IGNORECASE)
_PREFERENCE_EN = re.compile(
    r"\b(?:i (?:prefer|like|want|'d rather|would rather|'d like|would like)|prefer(?:red)?|"
    r"we (?:use|like|want)|(?:is|are) better|i'?m fine with)\b", re.IGNORECASE)
# The words that make a rule last: "always", "from now on", 「毎回」 (every rule word but "please",
# "needs" and the te-form requests).
_LASTING_WORDS_EN = (r"do not|never|always|must|should|make sure|be sure|ensure|remember to|from now on|"
                     r"going forward|in (?:the )?future|by default|every time|each time|whenever|"
                     r"no need to|need to|have to|has to|avoid")
_LASTING_WORDS_JA = r"必ず|常に|いつも|毎回|絶対|今後|これからは|以後|禁止|べき|ないで|ないように|ないこと"
_RULE_EN = re.compile(rf"\b(?:{_LASTING_WORDS_EN}|needs|please|stop \w+ing)\b", re.IGNORECASE)
_SELF = re.compile(r"\bi (?:do not|don'?t) (?!want|like)\w+", re.IGNORECASE)
_SUBORDINATE = re.compile(r"(?:before|after|when|whenever|once|if|while|until)\b", re.IGNORECASE)
_POLITE_EN = re.compile(r"^(?:can|could|would|will) (?:you|we)\b|\bplease\b", re.IGNORECASE)
_NOT = re.compile(r"\b(?:(won)|(can)|(\w+))n['’]t\b", re.IGNORECASE)

_CORRECTION_JA = re.compile(
    r"^(?:いや|違う|ちがう|そうじゃな|そうではな)|じゃなく|ではなく|でなく|代わりに|かわりに")
_PREFERENCE_JA = re.compile(r"好み|好き|方がいい|ほうがいい|方が良い|ほうが良い|優先|推奨")
_RULE_JA = re.compile(
    rf"{_LASTING_WORDS_JA}|すること|"
    r"ように(?:して|する|しろ)|しろ|せよ|なさい|お願い|ください|下さい|[てで](?:ほしい|欲しい)|使って|"
    r"使う(?:こと|ように)|を使用")
_TE_END = re.compile(r"[てで](?:ね|よ|な|くれ|ちょうだい)?[\s。．.！!？?…〜ー]*$")
_POLITE_JA = re.compile(r"ください|下さい|くれ|もらえ|いただけ|ほしい|欲しい|お願い")
_QUESTION = re.compile(r"[?？]\s*$|か[。]?\s*$")

# Base forms of the verbs people start an instruction to a coding agent with.
VERBS = frozenset("""add use run make create write remove delete keep put move rename update change fix set
call check test commit push merge rebase split return avoid stop include exclude show print list explain
describe document comment replace refactor rewrite implement install uninstall upgrade downgrade bump pin
import export format lint build deploy release tag clean clear reset revert undo restore save load read
open close start restart send fetch pull clone copy link wrap convert parse validate verify ensure mock
patch skip ignore handle catch raise throw retry wait limit cap store persist sort filter group join
append prepend insert drop trim strip escape encode decode hash sign trace debug measure benchmark
optimize simplify shorten extend expand inline extract generate render display hide disable enable turn
switch toggle configure define declare annotate name prefix specify pass give take get apply follow stick
prefer answer reply respond ask tell speak talk leave fill review search grep find compare consider
focus mention note remember be do go migrate squash amend sync lock unlock log port reuse separate
combine cover indent tell""".split())


# Of those, the verbs that ask for something to be shown or told now: "show tools", "explain this
# error", 「ツールを見せて」 is a task, not a rule for later, unless a word says it lasts ("always show
# the diff", "never print secrets", 「毎回見せて」) or a condition says when ("tell me the plan before
# you edit", "before you edit, tell me the plan", 「編集する前に計画を教えて」).
ASKING = frozenset("show print list display explain describe tell find search grep read open".split())
_ASKING_JA = re.compile(r"(?:見せ|表示し|教え|説明し|調べ|探し|読ん|開い|一覧(?:に|表示)?し|出し)[てで]")
_LASTING_EN = re.compile(rf"\b(?:{_LASTING_WORDS_EN}|stop)\b", re.IGNORECASE)
_LASTING_JA = re.compile(_LASTING_WORDS_JA)
_CONDITION = re.compile(r"\b(?:before|after|when|whenever|once|if|while|until|unless)\b", re.IGNORECASE)
_CONDITION_JA = re.compile(r"前に|まえに|後で|あとで|後に|あとに|とき|時[はに]|たら|ったら|場合|際")


def _asking_now(rest: str, english: str) -> bool:
    """Is this an ask to be shown or told something now, with nothing saying it lasts or when?"""
    first = re.match(r"(?:please\s+)?([A-Za-z]+)", english.strip(), re.IGNORECASE)
    asking = bool(first and first.group(1).casefold() in ASKING) or bool(_ASKING_JA.search(rest))
    if not asking:
        return False
    return not (_LASTING_EN.search(english) or _LASTING_JA.search(rest) or _CONDITION.search(english)
                or _CONDITION_JA.search(rest))


def clean(text: str) -> str:
    """The statement without a leading slash command (`/orchestrator create …` → `create …`)."""
    return _SLASH.sub("", text.strip())


def _expand_not(text: str) -> str:
    def repl(m: re.Match[str]) -> str:
        return "will not" if m.group(1) else "can not" if m.group(2) else f"{m.group(3)} not"

    return _NOT.sub(repl, text)


def kind_of(text: str) -> str | None:
    """correction, preference or instruction; None for anything else (questions, statements of
    fact, acknowledgements). Whether it is *about* something is features.py's call."""
    text = _expand_not(clean(text))
    if not text:
        return None
    rest = _LEAD.sub("", text).strip()
    question = bool(_QUESTION.search(rest))
    if question and not (_POLITE_EN.search(rest) or _POLITE_JA.search(rest)):
        return None
    english = _SELF.sub(" ", rest)
    if _CORRECTION_EN.search(english) or _CORRECTION_JA.search(rest):
        return CORRECTION
    if _PREFERENCE_EN.search(english) or _PREFERENCE_JA.search(rest):
        return PREFERENCE
    if _asking_now(rest, english):
        return None  # "show tools", "list the files", 「ツールを見せて」: output wanted now, no rule
    if _RULE_EN.search(english) or _RULE_JA.search(rest) or _TE_END.search(rest):
        return INSTRUCTION
    if _SUBORDINATE.match(rest) and "," in rest:  # "Before you edit anything, tell me the plan."
        rest = rest.split(",", 1)[1].strip()
    first = re.match(r"[A-Za-z]+", rest)
    if first and first.group(0).casefold() in VERBS:
        return INSTRUCTION
    if question:  # a polite request: "could you run the tests?"
        return INSTRUCTION
    return None
