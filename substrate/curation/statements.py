"""The offline extractor: durable first-person statements in a user's turn,
English and Arabic, with no model.

A turn is cut into sentences (and "by the way"-style asides); a sentence is
kept when the person says something lasting about themselves: who they are,
where they live, their work and role, the people and pets in their life, what
they own, their health and diet, what they did or have been doing, their
plans, and how they like things ("I really prefer…", "I'd rather…", "call me…",
"keep answers short"). A sentence is dropped when it asks or requests (a
question, "can you…", "I'm looking for recommendations…"), hedges ("I think",
"I wonder"), speaks of the assistant, or is not about the speaker. What is
kept is the person's own words, trimmed of discourse openers ("By the way,",
"Anyway,"), so consolidation files it as they said it. Our own blocks echoed
back into a turn are cut out first, then what the person only passes on
(quoted, forwarded, pasted, given to transform, code, reported speech:
`voices`); the assistant's turns are never read.

Every pattern runs on one sentence of bounded length
(`safety.patterns.short`), so a turn costs its length.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from substrate.meaning.arrangements import arranged
from substrate.meaning.sentences import (
    MAX_SENTENCE,
    clauses_of,
    sentence_pieces,
    tidy,
    within_reach,
    word_list,
)
from substrate.meaning.voices import voices
from substrate.safety import IGNORECASE, runs, short
from substrate.safety.echoes import strip_echoes

MIN_WORDS = 4
MAX_TURN = 20_000  # characters of a turn read

_OPENER = short(
    r"^(?:by the way|btw|anyway|also|oh|and|but|so|well|actually|yes|yeah|yep|ok|okay|"
    r"sure|thanks|thank you|great|cool|haha|lol|hi|hello|hey|speaking of [^,]{1,40}|"
    r"on that note|fun fact|for context|for reference|just so you know|fyi)\b[,!.:;-]*\s*",
    MAX_SENTENCE,
    IGNORECASE,
)
# A frame around a statement of the speaker's own ("I'm glad I finally got my
# sneakers cleaned", "I remember that I got them three weeks ago"): the
# statement is kept without it.
_FRAME = short(
    r"^(?:i'm (?:so |really )?glad|i remember|i realized|i realised)(?: that)? (?=(?:i|my)\b)",
    MAX_SENTENCE,
    IGNORECASE,
)
# "Remember I'm allergic to penicillin": the person asks memory to keep what
# follows, so it is kept without the judge's opinion when it is about them.
_ASKED = short(
    r"^(?:please |pls |oh,? |and |also |btw,? )?(?:remember|note|make a note|take note|"
    r"don't forget|do not forget|keep in mind|bear in mind|for the record|just so you know|"
    r"fyi|for your information|save this|store this)(?: that| this)?[,:!-]*\s+",
    MAX_SENTENCE,
    IGNORECASE,
)
# A fact about someone the person names, opening with their name: where they
# live or work, a birthday, a partner, a move ("Iona's birthday is on 12
# January", "Karim lives in Leith now").
_NAMED_FACT = short(
    r"^(?P<name>[A-Z][a-z\u00c0-\u024f'’-]{1,30})(?:'s|’s) (?:birthday|bday|anniversary|wedding|"
    r"husband|wife|partner|boyfriend|girlfriend|fianc[eé]e?|new job|job|school|university|"
    r"address|number|phone number|email|allergy|flat|house|dog|cat|baby|due date|surgery|"
    r"graduation|retirement)\b"
    r"|^(?P<who>[A-Z][a-z\u00c0-\u024f'’-]{1,30}) (?:now |just |recently |finally )?(?:lives|works|"
    r"moved|has moved|'s moved|started|has started|is allergic|was born|turns|is turning|"
    r"got married|got engaged|is pregnant|graduated|retired|is studying|studies|is training)\b",
    MAX_SENTENCE,
)
# Change language makes a statement concrete on its own ("I've switched to oat
# milk in my coffee").
_CHANGED = short(
    r"\b(?:switched|switching|moved|started|stopped|quit|gave up|given up|gone off|went off|"
    r"took up|taken up|changed|cancelled|canceled|sold|adopted|joined|left)\b",
    MAX_SENTENCE,
    IGNORECASE,
)
# The speaker, among a sentence's first words: the subject of what follows.
FIRST_PERSON = frozenset(
    "i i'm i’m i've i’ve i'd i’d i'll i’ll my we we're we’re we've we’ve our me".split()
)
FIRST_WORDS = 5
MY_VERBS = frozenset(
    "is are was were has have had lives works just recently got turned started loves "
    "likes named called passed expires expired runs renews ends starts due".split()
)
_ASKS = short(
    r"^(?:can|could|would|will|do|does|did|is|are|was|were|what|what's|how|why|where|"
    r"when|which|who|whom|whose|should|shall|may|might|please|tell|give|show|help|"
    r"suggest|recommend|list|explain|write|find|let's|let me know)\b"
    r"|\b(?:can you|could you|would you|will you|do you|did you|are you|have you|"
    r"let me know|any (?:tips|ideas|suggestions|recommendations|advice)|"
    r"looking for (?:some |a few |any |more )?(?:recommendations|suggestions|tips|ideas|"
    r"advice|help|information|info|resources|options|ways)|"
    r"(?:i|i'm|i am) (?:was |am )?(?:wondering|curious)|i want to know|i'd like to know|"
    r"i would like to know|i need (?:some |your |a little )?(?:help|advice|tips|ideas|"
    r"suggestions|recommendations|information)|i'd love (?:some|to get|to hear|your)|"
    r"i'd appreciate|you mentioned|you said|you suggested|you recommended|your "
    r"(?:suggestion|recommendation|answer|response|help|advice)|thanks? (?:you )?for)\b",
    MAX_SENTENCE,
    IGNORECASE,
)
_HEDGE = short(
    r"^(?:i see(?:$|[ ,.!]*(?:what|how|why|that|your|you|now|,|\.|!|$))|"
    r"i (?:think|guess|suppose|hope|wonder|feel like|believe|mean|agree|"
    r"understand|know what)|i'm (?:not sure|sure|glad|happy to|excited to (?:try|see|hear)|"
    r"thinking|trying to (?:decide|figure|find|understand|come up|get a sense))|"
    r"i (?:was|am) (?:thinking|hoping)|i'll (?:try|definitely|make sure|keep|check|"
    r"look|consider|have to|need|think|give)|i would|i could|i might|i may|i can|"
    r"i want to (?:make sure|try|learn more|know|find|get|create|start|improve|explore)|"
    r"i need to|i have to|i should|i don't know|i forgot|i wanted to (?:ask|know)|"
    r"i(?:'ve| have)? (?:also |recently )?heard|"
    r"i (?:really )?(?:like|love) the (?:sound|idea|look)|"
    r"i'm (?:also |really |just |still )?(?:curious|interested|excited to|looking|wondering|"
    r"thinking (?:of|about)|trying to (?:get|come up|think))|i just kind of|"
    r"i still think|i(?:'ve| have) (?:also )?noticed|i remember|i never knew|i (?:also )?want to "
    r"(?:explore|check|look|see|do|find)|i(?:'ve| have) never been|i haven't|i've got a few|"
    r"i'm (?:actually |also )?(?:thinking|using|trying to plan)|now that|funny thing|wish i|"
    r"i(?:'ve| have) been doing some research|i(?:'ve| have) been wanting|another thing|"
    r"i'm (?:also |still |a bit |really |pretty )?(?:considering|leaning|concerned|worried|"
    r"open to|torn|not really sure|100%)|i(?:'ll| will) (?!be )|i (?:still |also )?need to|"
    r"i(?:'d| would) love to|i like the|i have (?:a |some )?(?:coupon|question|idea)|"
    r"i(?:'ve| have) (?:also |really |just )?been (?:meaning|thinking|"
    r"wondering|reading about|researching|looking|considering|trying to (?:decide|figure|find)))\b",
    MAX_SENTENCE,
    IGNORECASE,
)
# What makes a statement about the speaker lasting (any one of these).
_DURABLE = short(
    r"\b(?:"
    # who they are, where they live, their work
    r"(?:i'm|i’m|i am) (?:really |just |also |now |still |finally |actually |slowly )?"
    r"(?:a|an|the|currently|now|still|originally|from|based|allergic|"
    r"vegetarian|vegan|pescatarian|married|engaged|divorced|single|pregnant|retired|"
    r"lactose|gluten|diabetic|training|learning|taking|working|living|studying|planning|"
    r"preparing|going|moving|starting|volunteering|recovering|using|into|part of|"
    r"a (?:big |huge )?fan|obsessed|saving|in (?:my|the|a)|on (?:a|the|my)|"
    r"\d+(?: years? old)?)"
    r"|(?:i|we) (?:was|were|got|have been|'ve been) (?:promoted|hired|accepted|admitted|"
    r"diagnosed|born|raised|married|engaged|elected|selected|certified|laid off)"
    r"|my name is|call me|(?:i|we) (?:(?:really|also|still|usually|actually|now|definitely|"
    r"generally|mostly|mainly|recently|just|finally) ){0,2}(?:live|lived|work|worked|teach|"
    r"taught|study|studied|play|played|own|owned|lead|led|manage|managed|mentor|coach|have|"
    r"had|use|used|prefer|love|loved|like|enjoy|enjoyed|"
    r"hate|dislike|usually|always|often|never|normally|typically|drive|run|swim|cook|"
    r"bake|speak|volunteer|collect|follow|attend|go to|went|visit|visited|moved|"
    r"relocated|started|began|joined|quit|left|graduated|finished|completed|bought|"
    r"purchased|got|adopted|rescued|attended|traveled|travelled|returned|booked|"
    r"signed up|enrolled|registered|switched|upgraded|sold|won|ran|hiked|climbed|"
    r"learned|learnt|met|married|celebrated|donated|read|watched|tried|planted|built|"
    r"made|cooked|baked|painted|wrote|took|spent|received|lost|broke|hurt|injured|"
    r"recovered|redeemed|earned|saved|paid|ordered|upgraded|picked up|set up|launched|"
    r"organized|organised|hosted|participated|competed|completed|ate|drank|cut|"
    r"saw|decided|chose|committed|stayed|worked|kept|continued|turned|reached|passed|"
    r"caught|scored|wake up|woke up|get up|commute|meditate|jog|practice|train|"
    r"reduced|increased|stopped|rather|recently|just|also|finally|still|currently|"
    r"already|once|'ve|’ve|'d rather|’d rather)"
    r"|(?:i've|i’ve|i have|we've|we have) (?:been|had|got|gotten|made|done|read|"
    r"watched|visited|finished|completed|started|tried|learned|owned|used|always|"
    r"never|already|just|recently|also|bought|taken|collected|saved|lost|spent|"
    r"attended|adopted|switched|moved)"
    r"|keep (?:your |the )?(?:answers|replies|responses) (?:short|brief|concise|detailed)"
    r"|(?:i|we) (?:will|'ll|’ll) be (?:\w+ing|in|at|on|away|traveling|travelling)"
    r"|(?:next|this) (?:week|month|year|weekend|summer|winter|spring|fall|autumn)"
    r")",
    MAX_SENTENCE,
    IGNORECASE,
)
# How the person likes things: kept even when phrased as a request ("Please keep
# answers short").
_STYLE = short(
    r"^(?:please )?(?:keep|make) (?:your |the |all )?(?:answers|replies|responses) "
    r"(?:short|shorter|brief|concise|detailed|longer)"
    r"|\bcall me\b|\b(?:i|we)(?:'d|’d| would) rather\b"
    r"(?! not (?:talk|discuss|say|get into|go into))"
    r"|\b(?:i|we) (?:really |much |definitely |generally |always |usually |strongly )?"
    r"(?:prefer|hate|can't stand|dislike)\b(?! (?:it|this|that|how|when|what|the idea)\b)",
    MAX_SENTENCE,
    IGNORECASE,
)
# Feelings of the moment, thanks and small talk: true, but nothing to remember.
_PHATIC = short(
    r"\b(?:thankful|grateful|stoked|so glad|so happy for|proud of you|here for you|"
    r"miss you|since we (?:last )?(?:talked|spoke|chatted)|look at (?:this|these|that)|"
    r"check (?:this|it|that) out|keeping busy|been busy|can't wait|cannot wait|"
    r"appreciate (?:it|that|you)|good to hear|nice to hear|sounds (?:good|great|fun)|"
    r"i feel|i'm feeling|i felt|starting to realize|means a lot|meant a lot|stumped|"
    r"about something|no matter what|let my hair down|had a blast|great time together|"
    r"always there for me|been my rock|if you could|wondering if|paying off|gone through|"
    r"never imagined|frustrating|i love how|like to say|longing|tonight|here i am|"
    r"like you|cheering me|on (?:a|the) bright side|so much fun|a great time|"
    r"reminded me of the impact|not making progress)\b",
    MAX_SENTENCE,
    IGNORECASE,
)
PRONOUNS = frozenset("it this that them these those they he she him her mine".split())
SELF_CONTAINED = 9  # words: a shorter statement about "it" names nothing to remember
# What makes a statement concrete enough to keep: when it happened, a name, a
# number, or one of the things a life is made of. A statement with none of these
# ("I had a blast there", "We have a great time together") names nothing to
# remember.
_WHEN = short(
    r"\b(?:yesterday|today|tonight|ago|since|daily|weekly|monthly|"
    r"(?:last|this|next|every) (?:\w+)|in (?:january|february|march|april|may|june|july|"
    r"august|september|october|november|december|\d{4})|on (?:mon|tues|wednes|thurs|fri|"
    r"satur|sun)days?|for (?:about |over |almost |nearly )?(?:a|an|one|two|three|four|five|"
    r"six|several|a few|\d+) (?:years?|months?|weeks?|days?)|(?:two|three|four|five|six|seven|"
    r"eight|nine|ten|twelve|twenty|a couple of|a dozen) (?:\w+ )?(?:years?|months?|weeks?|"
    r"days?|hours?|times|of them|kids|children|cats|dogs|bikes|cars))\b",
    MAX_SENTENCE,
    IGNORECASE,
)
_THINGS = short(
    r"\b(?:job|work|career|boss|colleagues?|coworkers?|company|startup|business|shop|store|"
    r"studio|dogs?|cats?|pup|puppy|pets?|snakes?|turtles?|sister|brother|wife|husband|"
    r"partner|girlfriend|boyfriend|fianc[eé]e?|mom|mother|dad|father|parents|kids?|son|"
    r"daughter|grand(?:ma|pa|mother|father|parents)|house|home|apartment|car|class|course|"
    r"degree|college|university|school|team|league|band|album|trip|vacation|flight|doctor|"
    r"allergic|allergy|diagnosed|surgery|garden|plants?|bike|guitar|piano|violin|"
    r"ukulele|marathon|gym|yoga|camera|laptop|subscription|client|volunteer(?:ed|ing)?|"
    r"charity|wedding|anniversary|birthday|promotion|promoted|salary|rent|mortgage|"
    r"diet|vegetarian|vegan|married|engaged|moved|adopted|graduated|hired|symptoms?|pain|"
    r"anxiety|asthma|diabetes|medication|therapy|injury|flu|infection|illness|sick|migraine|"
    r"bronchitis|pneumonia|covid|budget|savings|loan|debt|couch|"
    r"kitchen|living room|bedroom|yard|backyard|property|neighborhood|photography|painting|"
    r"cooking|baking|reading|hiking|running|cycling|fishing|hunting|knitting|gardening|"
    r"swimming|dancing|singing|coding|programming|campaigns?|website|blog|channel|"
    r"followers|tank|aquarium|collection|hobby|heritage|faith|church|hospital|office|"
    r"nurse|teacher|engineer|developer|designer|manager|student|lawyer|accountant|"
    r"retired|pregnant)\b",
    MAX_SENTENCE,
    IGNORECASE,
)
NOT_NAMES = frozenset(
    "I I'm I’m I've I’ve I'd I’d I'll I’ll Monday Tuesday Wednesday Thursday Friday "
    "Saturday Sunday OK Ok".split()
)
NOT_ME = frozenset(
    "you your you're you’re you've you’ve it it's it’s this that that's that’s these those "
    "there there's there’s here's what's glad reminds".split()
)

# Arabic, on text with its vowel marks and tatweel removed.
_AR_MARKS = runs("[\u0610-\u061a\u064b-\u065f\u0670\u0640]")
_AR_DURABLE = short(
    r"(?:^|\s)(?:انتقلت|سكنت|أسكن|اسكن|أعيش|اعيش|أعمل|اعمل|اشتغل|أشتغل|اشتغلت|"
    r"تخرجت|درست|أدرس|ادرس|اشتريت|تبنيت|تزوجت|خطبت|سافرت|زرت|بدأت|بديت|تركت|"
    r"انضممت|أفضل|افضل|أفضّل|أحب|احب|أكره|اكره|لا آكل|ما آكل|لم أعد|ما عدت|صرت|"
    r"أصبحت|اصبحت|عندي|لدي|اسمي|سأسافر|أخطط|اخطط|أنا|انا|"
    r"ترقيت|رقيت|حصلت|عمري|زوجي|زوجتي|ابني|ابنتي|اختي|أختي|اخي|أخي|كلبي|قطتي|"
    r"ناديني|نادني)(?:\s|$)",
    MAX_SENTENCE,
)
_AR_ASKS = short(
    r"(?:^|\s)(?:هل|كيف|ماذا|لماذا|متى|أين|وين|ايش|إيش|شو|ممكن|أريد أن أعرف|اريد ان اعرف|"
    r"ساعدني|اقترح|انصحني|أخبرني|اخبرني|اعطني|أعطني|اكتب|من فضلك|لو سمحت|"
    r"أبحث عن|ابحث عن|أحتاج|احتاج)(?:\s|$)",
    MAX_SENTENCE,
)


@dataclass(frozen=True)
class Statement:
    """A durable statement, in the speaker's words; `offset`: where in the turn.
    `judged`: whether the durability judge reads it (English statements of
    every family but how the person likes things; its labels are English)."""

    text: str
    offset: int
    judged: bool = True


Judge = Callable[[str], bool]


def durable_statements(turn: str, judge: Judge | None) -> list[Statement]:
    """The durable first-person statements of one user turn, in order: what the
    rules propose and, when a `judge` is given (`judge.DurabilityJudge`), it
    keeps. Only the person's own words are read (`voices`)."""
    return [r.statement for r in read_turn(turn, judge) if r.statement is not None]


@dataclass(frozen=True)
class Reading:
    """One part of a turn and what capture made of it: a `statement`, or why not."""

    text: str
    statement: Statement | None = None
    why: str | None = None


NOT_LASTING = "not a lasting statement about you"
JUDGED_PASSING = "the judge read it as passing"
REPEATED = "said earlier in the turn"


def read_turn(turn: str, judge: Judge | None) -> list[Reading]:
    """Every part of the turn in order, captured or skipped with the reason: what
    `memory sessions explain` shows."""
    text = strip_echoes(turn[:MAX_TURN])
    out: list[Reading] = []
    kept: set[str] = set()
    for span in voices(text):
        if span.why is not None:
            if span.text.strip():
                out.append(Reading(span.text.strip(), why=span.why))
            continue
        for offset, piece in sentence_pieces(span.text):
            found = _statement(piece)
            if found is None:
                out.append(Reading(piece.strip(), why=NOT_LASTING))
            elif found[0] in kept:
                out.append(Reading(piece.strip(), why=REPEATED))
            else:
                statement = Statement(found[0], span.offset + offset, found[1])
                if judge is not None and statement.judged and not judge(statement.text):
                    out.append(Reading(piece.strip(), why=JUDGED_PASSING))
                    continue
                kept.add(found[0])
                out.append(Reading(piece.strip(), statement))
    return [r for r in out if r.text]


def _statement(piece: str) -> tuple[str, bool] | None:
    """The statement a sentence holds, and whether the judge reads it."""
    sentence = " ".join(piece.split())
    if len(sentence) > MAX_SENTENCE:
        sentence = within_reach(sentence)
    for _ in range(4):  # "Oh, and by the way, …"
        opener = _OPENER.match(sentence)
        if opener is None or not opener.end():
            break
        sentence = sentence[opener.end() :]
    framed = _FRAME.match(sentence)
    if framed is not None:
        sentence = sentence[framed.end() :]
    sentence = sentence.strip(" -–—*•\t")
    asked = _ASKED.match(sentence)
    if asked is not None:
        rest = sentence[asked.end() :].strip()
        words = word_list(rest)
        if len(words) >= MIN_WORDS - 1 and not rest.endswith("?") and _about_them(rest, words):
            return tidy(rest), False  # asked to be remembered: kept as said
    if _named_fact(sentence):
        return tidy(sentence), False
    if len(sentence.split()) < MIN_WORDS or sentence.endswith(("?", "؟")):
        return None
    if _is_arabic(sentence):
        arabic = _arabic(sentence)
        return None if arabic is None else (arabic, False)
    words = word_list(sentence)
    if _STYLE.search(sentence) and not _ASKS.match(sentence.removeprefix("Please ")):
        return tidy(sentence), False
    if _kept(sentence, words):
        return tidy(sentence), True
    rescued = _rescued(sentence)
    return None if rescued is None else (rescued, True)


def _kept(sentence: str, words: list[str]) -> bool:
    if words[0] in NOT_ME or _ASKS.search(sentence) or _HEDGE.match(sentence):
        return False
    if _PHATIC.search(sentence) or _dangling(sentence, words) or not _concrete(sentence):
        return False
    if not FIRST_PERSON.intersection(words[:FIRST_WORDS]):
        return False
    if _DURABLE.search(sentence) or _my_clause(words):
        return True
    return arranged(sentence)  # "I keep my beehives at …": read from the parse


def _rescued(sentence: str) -> str | None:
    """A request or a hedge often carries a fact in another clause ("I'm thinking
    of going back to Hawaii, I went with my family last month"): the clause
    that opens with the speaker and passes on its own."""
    for clause in clauses_of(sentence)[1:]:
        words = word_list(clause)
        if len(words) >= MIN_WORDS and words[0] in FIRST_PERSON and _kept(clause, words):
            return tidy(clause)
    return None


def _dangling(sentence: str, words: list[str]) -> bool:
    """A statement about "it", "one" or "them" that names nothing else ("I spent
    ages restoring it.", "I visited one in the mountains"): its subject was in
    another sentence."""
    near = PRONOUNS.intersection(words[1 : FIRST_WORDS + 1]) | ({"one"} & set(words[1:4]))
    if not near and (len(words) > SELF_CONTAINED or not PRONOUNS.intersection(words)):
        return False
    return not (_named(sentence) or any(c.isdigit() for c in sentence) or _THINGS.search(sentence))


def _named(sentence: str) -> bool:
    return any(
        w[:1].isupper() and w.strip("\"',.!?:;()") not in NOT_NAMES for w in sentence.split()[1:]
    )


def _named_fact(sentence: str) -> bool:
    """A concrete statement about someone the person names ("Iona's birthday is
    on 12 January"), not a question or a request."""
    return (
        _NAMED_FACT.match(sentence) is not None
        and len(sentence.split()) >= MIN_WORDS
        and not sentence.endswith("?")
        and not _ASKS.search(sentence)
        and _concrete(sentence)
    )


def _about_them(rest: str, words: list[str]) -> bool:
    """What the person asked to be remembered is about them or someone they name."""
    return bool(FIRST_PERSON.intersection(words[:FIRST_WORDS]) or _NAMED_FACT.match(rest)) and (
        not _ASKS.search(rest)
    )


def _concrete(sentence: str) -> bool:
    return bool(
        _WHEN.search(sentence)
        or _CHANGED.search(sentence)
        or _THINGS.search(sentence)
        or _named(sentence)
        or any(c.isdigit() for c in sentence)
    )


def _my_clause(words: list[str]) -> bool:
    """ "my <one to three words> is / has / works / …": about someone or something
    of theirs ("my sister just got married", "my favourite band is Muse")."""
    for i, word in enumerate(words[: FIRST_WORDS + 2]):
        if word in ("my", "our") and any(w in MY_VERBS for w in words[i + 2 : i + 5]):
            return True
    return False


def _arabic(sentence: str) -> str | None:
    """Every durable cue is itself first person ("انتقلت", "أعمل", "أختي"), so it
    names the speaker too; how the person likes to be called is kept even when
    asked politely ("ناديني … من فضلك")."""
    plain = _AR_MARKS.sub("", sentence)
    if plain.startswith(("ناديني", "نادني")):
        return tidy(sentence)
    if _AR_ASKS.search(plain) or not _AR_DURABLE.search(plain):
        return None
    return tidy(sentence)


def _is_arabic(text: str) -> bool:
    letters = [c for c in text if c.isalpha()]
    return bool(letters) and sum("\u0600" <= c <= "\u06ff" for c in letters) * 2 > len(letters)
