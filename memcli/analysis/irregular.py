"""Irregular English word forms → the form Snowball stems like the rest of their family.

Snowball only strips suffixes, so "bought" never meets "buy" and "children" never meets "child":
a question asks "what did she buy?", the record says "she bought a bike". Only forms with one
common reading are listed ("left", "saw", "found", "felt", "leaves", "bit", "ground", "rose", "bound",
"wound" and "bore" are not: each is as often a word of its own), and no family that touches a code
word (CODE_WORDS): those are kept apart (CODE_FAMILIES) and only joined on the query side, at a
lower weight, for a word written in lowercase ("where did she go" also finds "she went"). The table
is general English grammar, not read off any benchmark's misses; it applies to plain words only,
never to ALL-CAPS words or parts of identifiers (see text.py).
"""

from __future__ import annotations

_VERBS = """
arise arose arisen|awake awoke awoken|bear borne|beat beaten|become became|begin began begun|
bend bent|bite bitten|bleed bled|blow blew blown|break broke broken|breed bred|
bring brought|build built|burn burnt|buy bought|catch caught|choose chose chosen|cling clung|
come came|creep crept|deal dealt|dig dug|do did done|draw drew drawn|dream dreamt|drink drank drunk|
drive drove driven|eat ate eaten|fall fell fallen|feed fed|fight fought|flee fled|fling flung|
fly flew flown flies|forbid forbade forbidden|forget forgot forgotten|forgive forgave forgiven|
freeze froze frozen|get got gotten|give gave given|go went gone goes|grow grew grown|
hang hung|have had|hear heard|hide hid hidden|hold held|keep kept|kneel knelt|know knew known|
lay laid|lead led|lean leant|leap leapt|learn learnt|lend lent|lie lain|lose lost|make made|
mean meant|meet met|mistake mistook mistaken|pay paid|prove proven|ride rode ridden|ring rang rung|
rise risen|run ran|say said|see seen|seek sought|sell sold|send sent|shake shook shaken|
shine shone|shoot shot|show shown|shrink shrank shrunk|sing sang sung|sink sank sunk|sit sat|
sleep slept|slide slid|speak spoke spoken|speed sped|spend spent|spin spun|spit spat|
spring sprang sprung|stand stood|steal stole stolen|stick stuck|sting stung|stink stank stunk|
strike struck stricken|strive strove striven|swear swore sworn|sweep swept|swim swam swum|
swing swung|take took taken|teach taught|tear tore torn|tell told|think thought|throw threw thrown|
understand understood|wake woke woken|wear wore worn|weave wove woven|weep wept|win won|
withdraw withdrew withdrawn|write wrote written
"""
_NOUNS = """
child children|man men|woman women|mouse mice|foot feet|tooth teeth|goose geese|life lives|
wife wives|knife knives|wolf wolves|half halves|shelf shelves|self selves|thief thieves|
loaf loaves|calf calves|person persons|criterion criteria|phenomenon phenomena|analysis analyses|
crisis crises|thesis theses|datum data|medium media
"""
_SKIP = {"data", "media"}  # "data" and "media" are used as words of their own

# Words with a meaning of their own in a code base: a family that has one of them as its base or as
# a form is left out, so a question about Go, make, GET, an LED, a log sink, Spring or a ring buffer
# does not match "went", "made", "got", "led", "sank", "sprang" or "rang" (nor "won't" → win).
CODE_WORDS = frozenset(
    "go make get lead led drive feed sink spring swing ring win won mean lie lay fly spin".split()
)

_FAMILIES = [forms.split() for table in (_VERBS, _NOUNS) for forms in table.replace("\n", "").split("|")]

BASE: dict[str, str] = {
    form: forms[0]
    for forms in _FAMILIES
    for form in forms[1:]
    if form not in _SKIP and not CODE_WORDS & set(forms)
}

# The families left out of BASE: the index keeps their forms as written, and a query word written as
# a plain lowercase word may still match the other forms at a lower weight (text.query_groups).
CODE_FAMILIES: list[list[str]] = [forms for forms in _FAMILIES if CODE_WORDS & set(forms)]

