"""A person's endeavours, read without a model: what they build, study, plan or
undertake (a startup, an app, a course, learning an instrument, a trip, a
renovation, training for a race), each its own page.

Questions about how an endeavour went ("how have my NER results evolved?",
"summarize my learning journey") need its facts together and in time order;
filed by topic, they scatter over `me/work`, `me/hobbies` and the catch-alls.
So a first-person fact that names an endeavour goes to the endeavour's page
under `projects/` (made on first mention, titled by a noun phrase: "Trip to
Lisbon", "Cello lessons", "Kitchen renovation", "Brightline"), which
links the person's page for its topic; a later fact that names the
endeavour's own name ("Lisbon", "cello", "Brightline") follows it there.
English and Arabic.
"""

from __future__ import annotations

from dataclasses import dataclass

from substrate.meaning.lexicon import FILLER
from substrate.safety import linear

FOLDER = "projects"
_AR = "\u0600-\u06ff"
_NAME = r"(?P<name>(?:[A-Z][\w.&'-]*)(?: [A-Z][\w.&'-]*){0,3})"
_THING = r"(?P<thing>[a-z][\w-]*(?: [a-z][\w-]*){0,2})"


@dataclass(frozen=True)
class Endeavour:
    """`title` names the page, `name` its own name (what a later fact says),
    `topic` the person's page it belongs under."""

    title: str
    name: str
    topic: str


@dataclass(frozen=True)
class _Kind:
    pattern: str
    topic: str
    title: str  # {name} / {thing}


_KINDS = [
    _Kind(
        r"(?i:\bmy |\bour |\bthe )(?i:startup|start-up|company|business|app|side project|"
        r"podcast|band|product|shop|store|agency|nonprofit|non-profit|channel|blog)"
        r"(?:,| called| named| is called)? " + _NAME,
        "work",
        "{name}",
    ),
    _Kind(
        r"(?i:\b(?:founded|co-founded|launched|launching|building|built|started|running|run)"
        r" (?:a |an |my |our )?(?:new )?(?:startup|start-up|company|business|app|podcast|"
        r"website|product|shop|nonprofit)(?:,| called| named)?) " + _NAME,
        "work",
        "{name}",
    ),
    _Kind(
        r"(?i:\b(?:trip|journey|holiday|vacation|honeymoon|move|road trip) to) "
        r"(?P<name>[A-Z][\w'-]*(?: [A-Z][\w'-]*){0,2})",
        "travel",
        "Trip to {name}",
    ),
    _Kind(
        r"(?i:\b(?:learning|learn|lessons? in|lessons|practicing|practising|taking up|took up|"
        r"picked up)) (?:the |to play the |how to play the |to play |how to )?"
        r"(?P<name>piano|guitar|violin|cello|viola|drums|flute|saxophone|trumpet|ukulele|harp|"
        r"bass|banjo|clarinet|oboe|singing|spanish|french|german|italian|japanese|mandarin|"
        r"arabic|portuguese|korean|russian|dutch|pottery|painting|photography|coding|"
        r"programming|calligraphy|knitting|sewing|woodworking|chess|surfing|climbing|"
        r"swimming|salsa|ballet|sign language)\b",
        "hobbies",
        "{name} lessons",
    ),
    _Kind(
        r"(?i:\b(?:course|class|classes|program|programme|bootcamp|degree|masters|master's|"
        r"certificate|certification|diploma) (?:in|on)) " + _THING,
        "education",
        "{thing} course",
    ),
    _Kind(
        r"(?i:\bmy (?:thesis|dissertation|research|experiments?|model|study) (?:on|about|into)) "
        + _THING,
        "education",
        "{thing} research",
    ),
    _Kind(
        r"(?i:\bmy|\bour|\bthe) (?P<name>[A-Z]{2,6}) (?i:model|project|experiments?|"
        r"pipeline|classifier|thesis|paper|research|study)\b",
        "education",
        "{name} project",
    ),
    _Kind(
        r"(?i:\b(?:renovating|renovation of|remodeling|remodelling|redoing|refurbishing) "
        r"(?:the |my |our ))(?P<thing>kitchen|bathroom|house|flat|apartment|garden|basement|"
        r"attic|loft|bedroom|living room|garage)",
        "home",
        "{thing} renovation",
    ),
    _Kind(
        r"(?i:\b(?:the |my |our ))(?P<thing>kitchen|bathroom|house|garden|basement|attic|loft)"
        r"(?i: (?:renovation|remodel|refurbishment|makeover|extension))",
        "home",
        "{thing} renovation",
    ),
    _Kind(
        r"(?i:\btraining for (?:a |an |the |my )?(?:first )?)(?P<thing>(?:half )?marathon|"
        r"triathlon|sprint triathlon|ultramarathon|10k|5k|century ride|ironman|race)",
        "health",
        "{thing} training",
    ),
    _Kind(
        rf"(?:رحلتي|رحلتنا|رحلة) (?:إلى|الى) (?P<name>[{_AR}]+)",
        "travel",
        "رحلة إلى {name}",
    ),
    _Kind(
        rf"(?:شركتي|شركتنا|مشروعي|مشروعنا|تطبيقي|تطبيقنا) (?P<name>[{_AR}]+)",
        "work",
        "{name}",
    ),
    _Kind(
        rf"(?:أتعلم|اتعلم|بدأت تعلم|أدرس) (?:العزف على )?(?P<name>ال[{_AR}]+)",
        "hobbies",
        "تعلّم {name}",
    ),
]
_COMPILED = [(linear(k.pattern), k) for k in _KINDS]
_GENERIC = frozenset("it this that them one new own my our your his her their the a an".split())
_CUT = frozenset(
    "got get gets is was were are has have had went and but for in at on to this that last next "
    "with which who so because since just now will would".split()
)


def endeavour_of(text: str) -> Endeavour | None:
    """The endeavour a first-person fact names, when it names one."""
    head = " ".join(text.split())[:400]
    for pattern, kind in _COMPILED:
        match = pattern.search(head)
        if match is None:
            continue
        groups = match.groupdict()
        name = _cut(_undetermined((groups.get("name") or groups.get("thing") or "").strip(" .,'-")))
        first = name.split(" ", 1)[0].lower().replace("’", "'") if name else ""
        if not name or name.lower() in _GENERIC or first in FILLER or first in _GENERIC:
            continue
        shown = name if name[:1].isupper() or not name.isascii() else name.lower()
        title = kind.title.format(name=shown, thing=shown)
        return Endeavour(title[:1].upper() + title[1:], name, kind.topic)
    return None


def _undetermined(name: str) -> str:
    """Without a leading determiner or possessive: "my return flight" is "return flight"."""
    words = name.split()
    while words and words[0].lower() in _GENERIC:
        words = words[1:]
    return " ".join(words)


def _cut(name: str) -> str:
    """A noun phrase, not the verb after it: "protein folding got accepted"."""
    words = name.split()
    for i, word in enumerate(words):
        if i and word.lower() in _CUT:
            return " ".join(words[:i])
    return name
