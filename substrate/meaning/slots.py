"""What a fact states, read without a model: its slot, value and change language.

A *slot* names the attribute a fact states (`home`, `employer`, `role`,
`phone`, `email`, `partner`, `school`, `diet`, `name`, `age`, `pet`,
`health`, `allergy`, `tool:<kind>`, `pref:<object>`), and whether a slot is
*single* (a person has one home, one employer: a new value replaces the old)
or holds many values (pets, allergies, tools of different kinds: a new one
replaces an old one only when the fact says so). *Change language* ("moved
to", "switched from X to Y", "no longer", "now", "got promoted to", "new
number", "انتقلت إلى", "لم أعد", "صرت") marks a fact as an update, and the
values it names as ended ("from X", "no longer X", "left X", "goodbye X") say
which old fact it replaces. A fact told as the past ("I used to live in
Leeds") takes no slot: it is history, not an update. An e-mail address or a
phone number is recognised by its shape. The patterns are in `slot_rules`;
the fact is read in its subject's own first person (`subjects`).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import lru_cache

from substrate.meaning import slot_rules as rules
from substrate.meaning.arabic import has_arabic
from substrate.meaning.arabic_places import is_institution
from substrate.meaning.lexicon import CATEGORY_TOPIC, RELATIONS, THING_CATEGORY, TOOL_KINDS
from substrate.meaning.parser import clauses, parsed
from substrate.meaning.sentences import sentence_ends
from substrate.meaning.words import title_problem
from substrate.safety import linear
from substrate.safety.patterns import Linear


@dataclass(frozen=True)
class SlotReading:
    """`slot`/`topic` None when the fact states no known attribute; `single`: a
    new value replaces the old one without being told; `change`: the fact uses
    change language; `value`: the value it states (folded), when it names one;
    `olds`: values it says ended; `past`: told as history; `kind`: an
    assertion, a cessation (it names what ended and no new value) or a
    hypothetical (`statements`; set by `reading.read_text`); `things`: what a
    change of the person's own names (`anchors.things_of`), which the fact of
    theirs that names it may be anchored to (set by `reading.read_text`)."""

    slot: str | None
    topic: str | None
    single: bool = False
    change: bool = False
    value: str | None = None
    olds: tuple[str, ...] = ()
    past: bool = False
    kind: str = "assertion"
    things: tuple[str, ...] = ()

    @property
    def cessation(self) -> bool:
        return self.kind == "cessation"


@dataclass(frozen=True)
class _Rule:
    slot: str
    topic: str
    single: bool
    pattern: Linear
    proper: bool


def _compile(table: list[rules.Rule], ignore_case: bool) -> list[_Rule]:
    flag = "(?i)" if ignore_case else ""
    return [_Rule(s, t, single, linear(flag + p), proper) for s, t, single, p, proper in table]


_EN = _compile(rules.EN, True)
_AR = _compile(rules.AR, False)
_CHANGE_EN = linear(rules.CHANGE_EN)
_CHANGE_AR = linear(rules.CHANGE_AR)
_PAST = linear(rules.PAST)
_OLDS_EN = [linear(p) for p in rules.OLDS_EN]
_OLDS_AR = [linear(p) for p in rules.OLDS_AR]
_FROM_TO = linear(rules.FROM_TO)
_FROM_TO_AR = linear(rules.FROM_TO_AR)
_PREF = linear(rules.PREF)
_FILLER = linear(rules.FILLER)
_BARE_PREF = linear(r"(?i)^(?:i\s+)?(?:do\s+|still\s+|now\s+|really\s+)*prefer(?:s|ring)?\b")
_SWITCHED_TO = linear(rules.SWITCHED_TO)
_DRINK_NOW = linear(rules.DRINK_NOW)
_DRINK_EVERY = linear(rules.DRINK_EVERY)
_FAVOURITE = linear(rules.FAVOURITE)
_PREF_AR = linear(rules.PREF_AR)
_DRINK_AR = linear(rules.DRINK_AR)
_USE_EN = linear(rules.USE_EN)
_USE_AR = linear(rules.USE_AR)
_REPLIES = linear(rules.REPLIES)
_VEHICLE = linear(
    rules.VEHICLE.replace(
        "KINDS", "|".join(sorted([*rules.VEHICLE_KINDS, *rules.CAR_MAKES], key=len, reverse=True))
    )
)
_PROVIDER = linear(
    rules.PROVIDER.replace("KINDS", "|".join(sorted(rules.PROVIDER_KINDS, key=len, reverse=True)))
)
_COMMUTE = linear(rules.COMMUTE)
_FIRST_AT = linear(rules.FIRST_AT)
_EMAIL = linear(rules.EMAIL)
_PHONE = linear(rules.PHONE)
_PHONE_WORDS = linear(rules.PHONE_WORDS)
# The person's own address said as theirs: "my email", "reach me on", "I'm on".
_WHOSE = frozenset("ROOT nsubj nsubjpass poss appos".split())
_MINE = linear(r"(?i)\b(?:my|me|i'm|i am|i)\b")
_STOP_TAIL = frozenset(
    "a an the my our in at to of for with and but now too also again since last this next "
    "yesterday today recently just though anyway".split()
    # and Arabic's: "مدرسة الفرير من سنتين", "بنك الرياض مع …"
    + "من في مع منذ على عن إلى الى و الشهر الأسبوع السنة اليوم امبارح أمس".split()
)
_TIME_UNITS = frozenset("day days week weeks month months year years weekend summer winter".split())
_TIME_LEADS = frozenset(
    "last this next a few two three four five six several couple the every".split()
)
SINGLE_TOOLS = frozenset({"editor", "laptop", "phone", "browser", "shell", "framework"})
Found = tuple[str, str, bool, str | None, list[str]]  # slot, topic, single, value, olds


@lru_cache(maxsize=8192)
def read_slot(text: str) -> SlotReading:
    """The slot reading of one fact's first sentence or two (see the module doc)."""
    head = plain(" ".join(text.split())[:400])
    arabic = any("\u0600" <= ch <= "\u06ff" for ch in head)
    change = bool(_CHANGE_EN.search(head) or (arabic and _CHANGE_AR.search(head)))
    olds = _olds(head, arabic)
    if _PAST.search(head):
        return SlotReading(None, None, past=True, change=change)
    found = (
        _shaped(head)
        or _first_at(head)
        or _ruled(head, arabic)
        or _kept(head)
        or _preference(head, arabic)
        or _tool(head, arabic)
    )
    if found is None:
        return SlotReading(None, None, change=change, olds=olds)
    slot, topic, single, value, old = found
    ended = tuple(o for o in dict.fromkeys([*olds, *old]) if o and o != value)
    return SlotReading(slot, topic, single, change or bool(old), value, ended)


def plain(head: str) -> str:
    """The fact without filler and hedges ("honestly", "to be honest", "I think"),
    and a bare "Prefer X" read as "I prefer X": "Prefer dark mode, honestly." and
    "I prefer dark mode" state one preference, so a repeat counts and a new
    value replaces it."""
    cleaned = " ".join(_FILLER.sub(" ", head).split()).strip(" ,")
    for mark in ".,;!?":
        cleaned = cleaned.replace(f" {mark}", mark)
    bare = _BARE_PREF.match(cleaned)
    if bare is not None:
        cleaned = "I prefer" + cleaned[bare.end() :]
    return cleaned


def _shaped(head: str) -> Found | None:
    """An e-mail address or a phone number, by its shape, unless it is a
    relative's ("my sister's email is …")."""
    lower = head.lower()
    if any(f"my {r}'s" in lower or f"my {r}’s" in lower for r in RELATIONS):
        return None
    email = _EMAIL.search(head)
    if email is not None and not _someone_elses(head, email.start()):
        return "email", "contact", True, email.group("v").lower(), []
    phone = _PHONE.search(head)
    digits = sum(c.isdigit() for c in phone.group("v")) if phone is not None else 0
    if phone is None or digits < 7 or not _PHONE_WORDS.search(head):
        return None
    if _someone_elses(head, phone.start()):
        return None
    return "phone", "contact", True, _digits(phone.group("v")), []


def _someone_elses(head: str, at: int) -> bool:
    """An address in a sentence that names a person and says nothing of the
    person's own ("Gemma Royce, Studio Coordinator, g.royce@…"): the named
    one's, whoever the statement as a whole is about."""
    colons = [i + 2 for i in range(len(head) - 1) if head[i : i + 2] == ": "]
    cuts = [0, *sentence_ends(head), *colons, len(head)]
    start = max(c for c in cuts if c <= at)
    end = min(c for c in cuts if c > at)
    sentence = head[start:end]
    if _MINE.search(_EMAIL.sub(" ", sentence)):  # "i.lindqvist@…" says no "I"
        return False
    doc = None if has_arabic(sentence) else parsed(sentence)
    if doc is None:
        return False
    # the one the sentence is about or whose it is, not a place it mentions
    if any(e.label_ == "PERSON" and e.root.dep_ in _WHOSE for e in doc.ents):
        return True
    # a card line the recogniser may misread ("Gemma Quill, Office Manager, …"):
    # no verb, two proper nouns opening it, a person's name or a firm's
    lead = [t for t in doc[:2] if t.pos_ == "PROPN" and t.text[:1].isupper()]
    verbless = not any(t.pos_ in ("VERB", "AUX") for t in doc)
    return len(lead) == 2 and verbless


def _digits(value: str) -> str:
    return "".join(c for c in value if c.isdigit() or c == "+")


def _first_at(head: str) -> Found | None:
    """A first day, week or month at a named place: the employer, named by the
    capitalised words that follow ("my first day at Kestrel was fine")."""
    match = _FIRST_AT.search(head)
    if match is None:
        return None
    name: list[str] = []
    for word in head[match.end() :].split():
        bare = word.strip(".,;:!?)'\"")
        if (
            not bare
            or not (bare[:1].isupper() or bare in ("&", "of"))
            or (bare.isupper() and len(bare) > 4)
        ):
            break
        name.append(bare)
        if bare != word:
            break
    while name and name[-1] in ("&", "of"):
        name.pop()
    value = clean(" ".join(name)) if name else None
    return ("employer", "work", True, value, []) if value else None


def _ruled(head: str, arabic: bool) -> Found | None:
    """The first rule that reads a value; a rule that only says a value ended ("I
    left Northwind") is joined by a later rule of its slot that names the new one
    ("… and now work at Acme")."""
    ended: Found | None = None
    for rule in [*(_AR if arabic else []), *_EN]:
        if ended is not None and rule.slot != ended[0]:
            continue
        match = rule.pattern.search(head)
        if match is None:
            continue
        groups = match.groupdict()
        value, old = groups.get("v"), groups.get("old")
        if rule.proper and not _proper(value or old):
            continue
        if rule.slot == "role" and value and value.split()[0] in ("في", "لدى"):
            continue  # "وظيفتي الجديدة في بنك …": where, not what the job is
        placed = value.split() if value else []
        elsewhere = _is_tool(value or "") or is_institution(placed[0]) if placed else False
        elsewhere = elsewhere or rules.provider_named(value or "") or _lived_on(head, value)
        if rule.slot == "home" and elsewhere:
            continue  # a tool ("moved to VS Code"), a place one goes ("… Animal Hospital")
        olds = [o for o in [clean(old)] if o]
        if clean(value) is None and ended is None:
            ended = (rule.slot, rule.topic, rule.single, None, olds)
            continue
        if ended is not None:
            olds = [*ended[4], *olds]
        return rule.slot, rule.topic, rule.single, clean(value), olds
    return ended


def _kept(head: str) -> Found | None:
    """How replies should be, a vehicle, a provider, the commute: the slots whose
    kind is read from the words themselves."""
    replies = _REPLIES.search(head)
    if replies is not None:
        return "pref:replies", "preferences", True, clean(replies.group("v")), []
    vehicle = _VEHICLE.search(head)
    if vehicle is not None:
        value = clean(vehicle.group("v") or vehicle.group("v2")) or ""
        kind = next(
            (rules.VEHICLE_KINDS[w] for w in reversed(value.split()) if w in rules.VEHICLE_KINDS),
            "car",
        )
        return f"vehicle:{kind}", "vehicles", True, value or None, []
    provider = _PROVIDER.search(head)
    if provider is not None:
        groups = provider.groupdict()
        said = (groups.get("kind") or groups.get("kind2") or "").lower()
        kind = rules.PROVIDER_KINDS.get(said, said)
        named = clean(groups.get("v") or groups.get("v2"))
        return f"provider:{kind}", rules.PROVIDER_TOPIC.get(kind, "health"), True, named, []
    commute = _COMMUTE.search(head)
    if commute is not None:
        return "habit:commute", "travel", True, clean(commute.group("v")), []
    return None


_ARTICLE = linear(r"^(?:[وفب]|ل)?ال")
# What one lives on that is no street: a product or a company's ("I live on
# Diet Coke", "on Red Bull"), as the recogniser types them.
_CONSUMED = frozenset({"PRODUCT", "ORG"})


def _letters(text: str) -> str:
    """Letters and digits alone, folded ("Coca - Cola" as the parse writes it)."""
    return "".join(ch for ch in text.casefold() if ch.isalnum())


def _lived_on(head: str, value: str | None) -> bool:
    """ "I live on Diet Coke": what the person lives on is what they consume, not a
    street or an island the recogniser types as a place or a name."""
    if not value:
        return False
    for clause in clauses(head):
        if clause.lemma not in ("live", "survive", "exist"):
            continue
        for phrase in clause.attached("on"):
            if _letters(phrase.text) == _letters(value) and phrase.entity in _CONSUMED:
                return phrase.text.split()[-1].lower() not in rules.STREET_WORDS
    return False


def _proper(value: str | None) -> bool:
    """A place or a name is written with a capital (or in a script without case)."""
    if not value or not value.strip():
        return True
    words = value.split()
    if len(words) > 1 and words[0].lower() == "the":
        words = words[1:]  # "the Western General"
    first = words[0][0]
    if first.isascii() and title_problem(" ".join(words)) is not None:
        return False  # "Mad", "Busy": a capital, not a name
    if has_arabic(words[0]):
        # Arabic has no capitals; a word with the article ("والجو", "الحلوة") is a
        # common noun or an adjective, not the name a rule wants
        return not _ARTICLE.match(words[0])
    return first.isupper() or not first.isascii()


def _preference(head: str, arabic: bool) -> Found | None:
    favourite = _FAVOURITE.search(head)
    if favourite is not None:
        obj = clean(favourite.group("obj")) or "thing"
        category = THING_CATEGORY.get(obj.split()[-1], obj.split()[-1])
        return f"pref:{category}", _topic(category), True, clean(favourite.group("v")), []
    match = _PREF.search(head) or (_PREF_AR.search(head) if arabic else None)
    if match is not None:
        groups = match.groupdict()
        value = clean(groups.get("more") or groups.get("person") or groups.get("v"))
        old = clean(groups.get("old"))
        category = _category(value) or _category(old) or _pair(value, old)
        return f"pref:{category}", _topic(category), True, value, [old] if old else []
    switched = _FROM_TO.search(head) or (_FROM_TO_AR.search(head) if arabic else None)
    if switched is not None:
        value, old = clean(switched.group("v")), clean(switched.group("old"))
        kind = _category(value) or _category(old)
        if kind is not None:
            return f"pref:{kind}", _topic(kind), True, value, [old] if old else []
    for pattern in (_SWITCHED_TO, _DRINK_NOW, _DRINK_EVERY, *((_DRINK_AR,) if arabic else ())):
        found = pattern.search(head)
        thing = clean(found.group("v")) if found is not None else None
        kind = _category(" ".join(thing.split()[:3])) if thing else None  # what it names first
        if kind is not None:
            return f"pref:{kind}", _topic(kind), True, thing, []
    return None


def _tool(head: str, arabic: bool) -> Found | None:
    """A named tool, device or framework the fact says the person uses."""
    lower = head.lower()
    hits = [
        (lower.find(name), name, kind) for name, kind in TOOL_KINDS.items() if _names(lower, name)
    ]
    if not hits or not (_USE_EN.search(head) or (arabic and _USE_AR.search(head))):
        return None
    from_to = _FROM_TO.search(head) or (_FROM_TO_AR.search(head) if arabic else None)
    if from_to is not None:
        new = clean(from_to.group("v")) or ""
        named = [(i, n, k) for i, n, k in hits if n in new]
        _, name, kind = _longest(named or hits)
        ended = clean(from_to.group("old"))
        value = name if named else new or name
        return f"tool:{kind}", "tech", kind in SINGLE_TOOLS, value, [ended] if ended else []
    olds = _olds(head, arabic)
    kept = [(i, n, k) for i, n, k in hits if not any(same_value(n, o) for o in olds)] or hits
    _, name, kind = _longest(kept)
    return f"tool:{kind}", "tech", kind in SINGLE_TOOLS, name, []


def _longest(hits: list[tuple[int, str, str]]) -> tuple[int, str, str]:
    """The first named tool, by its longest name there ("sublime text", not "sublime")."""
    return min(hits, key=lambda h: (h[0], -len(h[1])))


def _is_tool(value: str) -> bool:
    lower = value.lower()
    return any(_names(lower, name) for name in TOOL_KINDS)


def _names(lower: str, name: str) -> bool:
    at = lower.find(name)
    while at >= 0:
        before = lower[at - 1] if at else " "
        after = lower[at + len(name)] if at + len(name) < len(lower) else " "
        if not before.isalnum() and not (after.isalnum() or after in "+#"):
            return True
        at = lower.find(name, at + 1)
    return False


@lru_cache(maxsize=8192)
def _olds(head: str, arabic: bool) -> tuple[str, ...]:
    found = []
    for pattern in [*_OLDS_EN, *(_OLDS_AR if arabic else [])]:
        match = pattern.search(head)
        if match is not None and match.groupdict().get("old"):
            found.append(clean(match.group("old")))
    return tuple(o for o in dict.fromkeys(found) if o)


def _category(value: str | None) -> str | None:
    if not value:
        return None
    words = value.split()
    for a, b in itertools.pairwise(words):  # "earl grey", "flat white"
        if f"{a}-{b}" in THING_CATEGORY:
            return THING_CATEGORY[f"{a}-{b}"]
    for word in reversed(words):
        if word in THING_CATEGORY:
            return THING_CATEGORY[word]
    return THING_CATEGORY.get(value.replace(" ", "-"))


def _pair(value: str | None, old: str | None) -> str:
    """A preference between two things no category knows: named by both."""
    words = sorted(w.split()[-1] for w in (value, old) if w)
    return "-".join(words) or "general"


def _topic(category: str) -> str:
    return CATEGORY_TOPIC.get(category, "preferences")


def clean(value: str | None) -> str | None:
    """A value folded for comparing: lower case, little words at its ends dropped."""
    if not value:
        return None
    words = [w.strip(".,;:!?\"'()’") for w in value.lower().split()]
    words = [w for w in words if w]
    changed = True
    while changed:
        changed = False
        while words and words[-1] in _STOP_TAIL:
            words.pop()
            changed = True
        if len(words) >= 2 and words[-1] in _TIME_UNITS and words[-2] in _TIME_LEADS:
            del words[-2:]  # "Brightwater last week", "Leeds two years ago"
            changed = True
        if len(words) >= 3 and words[-1] == "ago" and words[-2] in _TIME_UNITS:
            del words[-3:]
            changed = True
    while words and words[0] in ("a", "an", "the", "my", "our"):
        words.pop(0)
    return " ".join(words[:5]) or None


def same_value(a: str | None, b: str | None) -> bool:
    """Two values name the same thing when either holds the other's words."""
    if not a or not b:
        return False
    wa, wb = set(a.split()), set(b.split())
    return wa <= wb or wb <= wa


def mentions(text: str, value: str) -> bool:
    """Whether a fact's text names `value` (all of its words)."""
    lower = " ".join(text.lower().split())
    return all(_names(lower, word) for word in value.split() if len(word) > 1)
