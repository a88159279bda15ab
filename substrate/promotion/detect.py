"""Deterministic detectors: a statement → a canonical preference or project fact.

Narrow on purpose. A preference is recognised only where the syntax says so
("I prefer X", "Default to X", "Use X by default", "أفضل X", "استخدم X
افتراضياً"); "I like X", "Maybe use X", "Could you use X" and "Switch to X"
are not preferences. The canonical content ("Prefer X.") is what is stored and
compared, and its key (casefolded, spaces collapsed) is the only equivalence
there is: no model, no similarity. Arabic generic captures accept only
technical-looking values (a known language, a package-manager command, an
env-style constant, a path, a model or version token), so a broad Arabic
phrase is never taken for a preference."""

from __future__ import annotations

from dataclasses import dataclass

from substrate.meaning.keys import key_of, without_filler
from substrate.safety import IGNORECASE, escape, runs, short

PREFERENCE = "preference"
PROJECT_FACT = "project-fact"

LANGUAGES = (
    "TypeScript JavaScript Python Go Golang Rust Java Kotlin Swift Ruby PHP C C++ C# "
    "Scala Elixir Haskell Dart Lua Perl R Julia Zig SQL Bash"
).split()
LANGUAGE_PATTERN = "|".join(escape(x) for x in sorted(LANGUAGES, key=len, reverse=True))
MANAGERS = "npm pnpm yarn bun pip pipx uv poetry conda cargo go gradle maven make deno".split()
MANAGER_PATTERN = "|".join(MANAGERS)
TESTERS = "pytest jest vitest mocha tox nox".split()

# Arabic X: technical-looking values only (see the module doc).
# Statements are short (the extractor refuses longer ones): every pattern here
# reads at most this many characters (`safety.patterns.short`).
MAX_CHARS = 400
_TECHNICAL = short(
    rf"^(?:(?:{LANGUAGE_PATTERN})"
    rf"|(?:{MANAGER_PATTERN})(?: (?:test|tests|run [\w:-]+|install|build|lint|start))?"
    rf"|(?:{'|'.join(TESTERS)})"
    r"|[A-Z][A-Z0-9]*_[A-Z0-9_]*[A-Z0-9]"
    r"|(?:~|\.{1,2})?/[\w./-]+"
    r"|[A-Za-z][A-Za-z0-9]*-\d[\d.]*[a-z]?|v\d+\.[\d.]*\d)$",
    MAX_CHARS,
    IGNORECASE,
)
_LEAD = short(
    r"^(?:ok(?:ay)?|also|and|so|btw|fyi|note|remember|just)[,:]?\s+", MAX_CHARS, IGNORECASE
)
_TAIL = " \t\r\n\f\v.!;؛،,"
_ADVERB = r"(?: really| much| definitely| generally| strongly| usually| always| just| also)?"
_EN_PREFERENCE = [
    short(rf"^(?:i|we)(?: would|'d|’d)?{_ADVERB} prefer (?P<x>.+)$", MAX_CHARS, IGNORECASE),
    short(
        rf"^(?:i|we)(?: would|'d|’d){_ADVERB} rather (?:have |use |get )?(?P<x>.+)$",
        MAX_CHARS,
        IGNORECASE,
    ),
    short(r"^(?:my|our) preference is (?P<x>.+)$", MAX_CHARS, IGNORECASE),
    short(r"^prefer (?P<x>.+)$", MAX_CHARS, IGNORECASE),  # a note's "Prefer X, honestly."
    short(r"^(?:please )?default to (?P<x>.+)$", MAX_CHARS, IGNORECASE),
    short(r"^(?:please )?(?:always )?use (?P<x>.+?) by default$", MAX_CHARS, IGNORECASE),
    short(r"^(?:please )?switch to (?P<x>.+?) by default$", MAX_CHARS, IGNORECASE),
]
_EN_VERBOSITY = short(
    r"^(?:please )?(?:keep|make) (?:your |the |all )?(?:replies|answers|responses) "
    r"(?P<x>concise|short|brief|detailed)(?:[,;] .{0,120})?$",
    MAX_CHARS,
    IGNORECASE,
)
_EN_NAME = short(
    r"^(?:(?:[Pp]lease|[Jj]ust) )?[Cc]all me "
    r"(?P<x>[A-Z][\w'’-]{0,30}(?: [A-Z][\w'’-]{0,30})?(?: [A-Z][\w'’-]{0,30})?)"
    r"(?:[,;] .{0,120}| (?:please|instead|from now on))?$",  # the name: capitalized
    MAX_CHARS,
)
_AR_NAME = short(
    r"^(?:من فضلك |رجاء )?(?:ناديني|نادني|سمني|سمّني) (?P<x>\S{2,30}(?: \S{2,30})?)$", MAX_CHARS
)
# A preference stated with its subject ("أنا أفضل …") reads "I prefer", never
# "the best …": its value may be any short phrase, not only a technical one.
_AR_OWN_PREFERENCE = short(r"^(?:انا|أنا|نحن|احنا) (?:أفضل|افضل|نفضل) (?P<x>.+)$", MAX_CHARS)
_SCOPE = short(
    r" (?:in (?:every|all|each) (?:app|apps|tool|tools|editor|editors)|everywhere|"
    r"for everything|whenever possible|if possible|please|thanks|by default|always)$",
    MAX_CHARS,
    IGNORECASE,
)
_EN_ALWAYS = short(r"^(?:please )?always use (?P<x>[\w -]{2,30})$", MAX_CHARS, IGNORECASE)
_EN_FACTS = [
    (
        short(r"^(?:the|this|our) project uses (?P<x>.+)$", MAX_CHARS, IGNORECASE),
        "The project uses {x}.",
    ),
    (
        short(r"^(?:please )?run (?:the )?tests with (?P<x>.+)$", MAX_CHARS, IGNORECASE),
        "Run tests with {x}.",
    ),
    (
        short(
            r"^(?P<x>.+?) (?P<v>is|are) (?:stored|kept) (?:under|in) (?P<y>\S+)$",
            MAX_CHARS,
            IGNORECASE,
        ),
        "{x} {v} stored under {y}.",
    ),
]
# Arabic, on text with its vowel marks and tatweel removed.
_AR_MARKS = runs("[\u0610-\u061a\u064b-\u065f\u0670\u0640]")
_AR_PREFERENCE = [
    short(r"^(?:انا |أنا |نحن )?(?:أفضل|افضل|نفضل|أفضّل) (?P<x>.+)$", MAX_CHARS),
    short(
        r"^(?:استخدم|استعمل|خلي|خل|اجعل) (?P<x>.+?) "
        r"(?:افتراضيا|افتراضياً|بشكل افتراضي|كافتراضي|دائما|دائماً)$",
        MAX_CHARS,
    ),
]
_AR_VERBOSITY = short(
    r"^(?:خلي|خل|اجعل|خلّي)(?: لي)? (?:الردود|الإجابات|الاجابات|ردودك|إجاباتك|اجاباتك) "
    r"(?P<x>مختصرة|قصيرة|موجزة|مفصلة|مفصّلة)$",
    MAX_CHARS,
)
_VERBOSITY = {
    "concise": "concise", "short": "concise", "brief": "concise", "detailed": "detailed",
    "مختصرة": "concise", "قصيرة": "concise", "موجزة": "concise", "مفصلة": "detailed",
}  # fmt: skip
_REJECT_X = short(
    r"^(?:to |it\b|this\b|that\b|them\b|not\b|whatever\b|something\b|anything\b)"
    r"|\b(?:because|if|when|but|which|who|since|although|unless)\b"
    r"|\b(?:you|me|him|her|us)\b",  # "I'd rather show you a photo": an act, not a preference
    MAX_CHARS,
    IGNORECASE,
)
_REPLIES = short(
    r"(concise|short|brief|detailed) (?:replies|answers|responses)", MAX_CHARS, IGNORECASE
)
_USING = short(r"^(?:using|to use) ", MAX_CHARS, IGNORECASE)
MAX_VALUE_WORDS = 8  # "Prefer routes with minimal traffic and nice scenery."
# One of these is in every statement the detectors read as that kind (folded
# Arabic: no marks, plain alef), English and Arabic together: an English
# statement corroborates an Arabic one.
PREFERENCE_TRIGGERS = (
    "prefer",
    "preference",
    "default",
    "افضل",
    "نفضل",
    "افتراضيا",
    "افتراضي",
    "كافتراضي",
    "دائما",
)
REPLY_TRIGGERS: tuple[str, ...] = (
    "replies",
    "answers",
    "responses",
    "الردود",
    "الاجابات",
    "ردودك",
    "اجاباتك",
)
REPLY_TRIGGERS += PREFERENCE_TRIGGERS  # "I prefer concise replies"
FACT_TRIGGERS = ("project", "tests", "stored", "kept")


@dataclass(frozen=True)
class Detection:
    kind: str  # PREFERENCE or PROJECT_FACT
    content: str  # canonical: what is stored and shown
    value: str  # the captured value (what evidence search looks for)
    detector: str  # which pattern recognised it, for `explain`
    phrases: tuple[str, ...] = ()  # extra search phrases (another language's words)

    @property
    def triggers(self) -> list[str]:
        """Words every statement any detector reads as this kind must hold (one of):
        the evidence search asks for one of them beside the value."""
        if self.kind == PROJECT_FACT:
            return list(FACT_TRIGGERS)
        if self.content.startswith("Always use"):
            return ["always"]
        if self.content.startswith(("Call me", "ناديني")):
            return ["call", "ناديني", "نادني"]
        if self.content.endswith(" replies."):
            return list(REPLY_TRIGGERS)
        return list(PREFERENCE_TRIGGERS)

    @property
    def key(self) -> str:
        return content_key(self.content)

    @property
    def search_phrases(self) -> list[str]:
        return [self.value, *self.phrases]


def content_key(content: str) -> str:
    """What two preferences are compared by: the content case-folded, without
    filler ("honestly", "now", "really": `meaning.keys`), so a repeat counts
    and a new value of the same frame conflicts."""
    return key_of(content)


def detect(statement: str) -> Detection | None:
    """The preference or project fact `statement` states, if any."""
    text = statement.strip()
    if len(text) > MAX_CHARS:
        return None  # no detector reads a statement this long
    while (lead := _LEAD.match(text)) is not None:
        text = text[lead.end() :]
    text = text.rstrip(_TAIL)
    return _english(text) or _arabic(_AR_MARKS.sub("", text)) or _fact(text)


def _english(text: str) -> Detection | None:
    verbosity = _EN_VERBOSITY.match(text)
    if verbosity:
        return _replies(verbosity.group("x").lower(), "en:keep-replies")
    name = _EN_NAME.match(text)
    if name:
        value = name.group("x")
        return Detection(PREFERENCE, f"Call me {value}.", value, "en:call-me")
    for pattern in _EN_PREFERENCE:
        match = pattern.match(text)
        if match:
            value = _value(match.group("x"))
            if value is None:
                return None
            replies = _REPLIES.fullmatch(value)
            if replies:
                return _replies(replies.group(1).lower(), "en:prefer-replies")
            return Detection(PREFERENCE, f"Prefer {value}.", value, f"en:{pattern.pattern[:24]}")
    always = _EN_ALWAYS.match(text)
    if always and _value(always.group("x")) is not None:
        value = always.group("x").strip()
        return Detection(PREFERENCE, f"Always use {value}.", value, "en:always-use")
    return None


def _arabic(text: str) -> Detection | None:
    verbosity = _AR_VERBOSITY.match(text)
    if verbosity:
        return _replies(_VERBOSITY[verbosity.group("x").replace("ّ", "")], "ar:replies")
    name = _AR_NAME.match(text)
    if name:
        value = name.group("x")
        return Detection(PREFERENCE, f"Call me {value}.", value, "ar:call-me", ("ناديني",))
    own = _AR_OWN_PREFERENCE.match(text)
    if own and not _TECHNICAL.match(" ".join(own.group("x").split())):
        value = " ".join(own.group("x").split())
        # "أفضل" before an indefinite noun is "the best" ("أنا أفضل لاعب": I am the
        # best player); a preference names a definite thing ("الوضع") or a verb ("أن").
        if len(value.split()) > MAX_VALUE_WORDS or not value.startswith(("ال", "أن ", "ان ")):
            return None
        return Detection(PREFERENCE, f"أفضّل {value}.", value, "ar:own-prefer")
    for i, pattern in enumerate(_AR_PREFERENCE):
        match = pattern.match(text)
        if match:
            value = " ".join(match.group("x").split())
            if not _TECHNICAL.match(value):
                return None  # a broad Arabic phrase: never a preference
            return Detection(
                PREFERENCE, f"Prefer {value}.", value, f"ar:{'prefer' if i == 0 else 'default'}"
            )
    return None


def _replies(kind: str, detector: str) -> Detection:
    word = _VERBOSITY.get(kind, kind)
    arabic = ("مختصرة", "قصيرة", "موجزة") if word == "concise" else ("مفصلة",)
    english = ("concise", "brief", "short") if word == "concise" else ("detailed",)
    return Detection(
        PREFERENCE,
        f"Prefer {word} replies.",
        word,
        detector,
        tuple(w for w in (*english, *arabic) if w != word),
    )


def _fact(text: str) -> Detection | None:
    for pattern, template in _EN_FACTS:
        match = pattern.match(text)
        if match:
            parts = {
                k: (v.lower() if k == "v" else _value(v)) for k, v in match.groupdict().items()
            }
            if any(v is None for v in parts.values()):
                return None
            content = template.format(**parts)
            return Detection(PROJECT_FACT, content, str(parts["x"]), "en:fact")
    return None


def _value(raw: str) -> str | None:
    value = without_filler(" ".join(raw.split())).strip(" ,;:")
    value = _USING.sub("", value)
    if len(value) <= MAX_CHARS:
        value = _SCOPE.sub("", value)  # "dark mode in every app": the preference is dark mode
    if not value or _REJECT_X.search(value) or len(value.split()) > MAX_VALUE_WORDS:
        return None
    return value
