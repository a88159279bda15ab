"""The Arabic reading: which verb ends or exchanges what, by the verb's lemma,
and which fact an ended thing names, by its words' stems.

Arabic has no parser here; it has a morphological analyser that ships its
dictionary (`qalsadi`, over `arramooz`'s verb and noun tables): "بعت",
"بعنا" and "يبيع" are all the verb باع, "تركت" is ترك. A predicate's class
is its lemma's (`END`, `EXCHANGE`), in standard Arabic and the dialects'
common verbs; a dialect form the dictionary does not hold ("كنسلت",
"وقفت" read as قفى) is also tried as its bare stem, the person's ending
(ت، نا، وا…) and a leading و/ف taken off. Arabic puts the verb before what
it acts on, so what an end or exchange names is the words right after the
verb, up to a preposition, a conjunction, a comma or the next verb ("بعت
اللكزس وخذيت جيب": اللكزس); an end with nothing after it names what came
before it ("لولو ماتت": لولو). A negated verb (ما، لا، لم، مش، مو…) or one in
the future (سوف، راح، ح…) says nothing happened.

`stems(text)` are a text's content words with the clitics Arabic writes onto
a word taken off (و، ف، ب، ل، ك، ال before; a possessive ending after:
"بالكورال" and "الكورال" meet, "اشتراكي" meets "اشتراك") and the letter
variants folded, so `anchors` can match an ended thing against a fact the way
it matches English lemmas.
"""

from __future__ import annotations

import threading
from functools import lru_cache
from typing import Any

from substrate.safety.patterns import runs

READ_CHARS = 600
MARKS = runs("[\u0610-\u061a\u064b-\u065f\u0670\u06d6-\u06dc\u06df-\u06e8\u06ea-\u06ed\u0640]")
_FOLD = str.maketrans(
    {"آ": "ا", "أ": "ا", "إ": "ا", "ٱ": "ا", "ؤ": "و", "ئ": "ي", "ى": "ي", "ة": "ه"}
)
_ARABIC = runs("[\u0600-\u06ff]")
PUNCT = frozenset("،,.!؟?:;()[]\u2014\u2013\"'“”«»")


def fold(word: str) -> str:
    """A word without its marks, its letter variants folded."""
    return MARKS.sub("", word).translate(_FOLD)


# Verbs that end what they act on (lemmas, folded), standard and dialect.
END = frozenset(
    fold(w)
    for w in """باع ترك بطل وقف أوقف توقف مات توفي ألغى كنسل أغلق غلق قفل انسحب استقال
    فسخ طلق انفصل أنهى نهى خلص ودع تخلى سيب فارق لغى انتهى هدى أهدى تبرع تخرج""".split()
)
# Ends whose thing is their subject, said before them ("لولو ماتت", "الارتباط انتهى").
INTRANSITIVE = frozenset(fold(w) for w in "مات توفي انتهى".split())
# What an end is "from" or "of": "انسحبت من الكورال", "تخليت عن السيارة".
_FROM = frozenset(fold(w) for w in "من عن".split())
EXCHANGE = frozenset(fold(w) for w in "بدل استبدل غير حول".split())
# The person's endings a dialect verb is tried without, longest first.
_ENDINGS = ("تهم", "تها", "ناها", "ناه", "ته", "تو", "تي", "نا", "وا", "ت")
_NEGATIONS = frozenset(fold(w) for w in "ما لا لم لن مش مو مب ماني مانيش".split())
_FUTURE = frozenset(fold(w) for w in "سوف راح رح ح بدي ناوي ناويه حاب".split())
# Words that close the thing a verb acts on.
STOPS = frozenset(
    fold(w)
    for w in """في من على إلى الى عن مع عشان علشان لأن لان بعد قبل بس لكن بسبب حتى منذ من
    اللي الذي التي هو هي انا أنا احنا نحن كل""".split()
)
# Adverbs, and the words of a time that say when, not what ("الأسبوع الماضي").
_ADVERBS = frozenset(
    fold(w)
    for w in """خالص خلاص بالمره نهائي ابدا كمان برضو امبارح امس أمس البارحة بكره بكرة هلق
    الحين اليوم الأسبوع الشهر السنة العام الصبح""".split()
)
_CLITIC_BEFORE = ("وال", "فال", "بال", "كال", "لل", "ال")
_POSSESSIVE = ("هما", "هم", "كم", "ها", "نا", "ي", "ك")
_lock = threading.Lock()
_loaded: list[Any] = []


def has_arabic(text: str) -> bool:
    return _ARABIC.search(text) is not None


def lemmatizer() -> Any:
    with _lock:
        if not _loaded:
            import qalsadi.lemmatizer

            _loaded.append(qalsadi.lemmatizer.Lemmatizer())
        return _loaded[0]


def readings_of(word: str) -> list[Any]:
    """The analyser's readings of one word. Its dictionary is queried with the
    word spliced into SQL, so a quote in it ("'مبروك") breaks the query: the
    quotes go first."""
    return list(lemmatizer().analexer.check_word(_quoteless(word)))


def _quoteless(word: str) -> str:
    return word.translate(_QUOTES)


_QUOTES = str.maketrans("", "", "'\"‘’“”`")


@lru_cache(maxsize=16384)
def verb_lemma(word: str) -> str:
    """The analyser's lemma of `word` read as a verb, folded ('' when it reads
    no verb there)."""
    found = lemmatizer().lemmatize(_quoteless(MARKS.sub("", word)), return_pos=True)
    lemma, pos = found if isinstance(found, tuple) else (found, "")
    return fold(str(lemma)) if pos == "verb" else ""


# The analyser's person tags of a verb said by the speaker.
_FIRST_PERSONS = frozenset({"أنا", "نحن"})


@lru_cache(maxsize=8192)
def first_person_verb(word: str) -> bool:
    """Whether the analyser reads `word` as a verb the speaker says of themselves
    ("أشتغل", "ربيت", "سافرنا"), in any of its readings; a dialect's present
    with "ب" ("بشتغل") is read as the verb after it. A past form in "ت" is
    also "she" or "you": the caller weighs where it stands."""
    bare = MARKS.sub("", word)
    tries = [bare]
    if bare.startswith("ب") and len(bare) > 3:  # "بشتغل": ب + أشتغل, "بنسكن": ب + نسكن
        tries += ["أ" + bare[1:], bare[1:]]
    return any(_speaker_tagged(t) for t in tries)


def _speaker_tagged(word: str) -> bool:
    for reading in readings_of(word):
        if getattr(reading, "type", "") != "Verb":
            continue
        if _FIRST_PERSONS.intersection(str(getattr(reading, "tags", "")).split(":")):
            return True
    return False


@lru_cache(maxsize=8192)
def _kinds(word: str) -> tuple[str, ...]:
    """The kind of each reading the analyser has of `word` ("Verb",
    "Noun::جامد", …): asked once, whichever question is put of the word."""
    return tuple(str(getattr(r, "type", "")) for r in readings_of(word))


def only_verb(word: str) -> bool:
    """Whether every reading the analyser has of `word` is a verb ("ربيت",
    "أشتغل", "رجعت"): a word that can also be a noun ("بيت", "صقر") may still
    name a subject."""
    kinds = _kinds(word)
    return "Verb" in kinds and all(t == "Verb" for t in kinds)


def may_be_verb(word: str) -> bool:
    """Whether any reading the analyser has of `word` is a verb ("توظف" is the
    verb "he was employed" as well as the noun "employment")."""
    return "Verb" in _kinds(word)


def doer_noun(word: str) -> bool:
    """The analyser reads `word` first as an active participle, a noun of one who
    does or is ("ممرضة", "مشترك", "ساكن")."""
    kinds = _kinds(word)
    return bool(kinds) and "فاعل" in kinds[0]


def may_be_noun(word: str) -> bool:
    return any(t.startswith("Noun") for t in _kinds(word))


def verb_lemmas(word: str) -> list[str]:
    """What one Arabic word may be as a verb, in the order tried: the analyser's
    lemma, then the word's bare stems (`bare_stems`: a dialect form the
    dictionary does not hold, its ending or leading و/ف taken off)."""
    return [verb_lemma(word), *bare_stems(fold(word))]


def verb_class(word: str) -> str | None:
    """`end`, `intransitive` (an end of its subject), `exchange` or None for
    one Arabic word (see the module doc)."""
    for lemma in verb_lemmas(word):
        if lemma in INTRANSITIVE:
            return "intransitive"
        if lemma in END:
            return "end"
        if lemma in EXCHANGE:
            return "exchange"
    return None


def bare_stems(word: str) -> list[str]:
    out = []
    for head in (word, word[1:] if word[:1] in ("و", "ف") and len(word) > 4 else ""):
        if not head:
            continue
        out.append(head)
        out += [head[: -len(e)] for e in _ENDINGS if head.endswith(e) and len(head) - len(e) >= 3]
    return out


@lru_cache(maxsize=4096)
def arabic_ends(text: str) -> tuple[str, ...]:
    """What `text`'s Arabic verbs of ending or exchange name (see the module doc)."""
    tokens = word_tokens(text)
    out: list[str] = []
    for i, token in enumerate(tokens):
        if not has_arabic(token) or len(token) < 3:
            continue
        kind = verb_class(token)
        if kind is None or unreal_at(tokens, i):
            continue
        start = i + 1
        if start < len(tokens) and fold(tokens[start]) in _FROM:
            start += 1  # "انسحبت من الكورال"
        after = "" if kind == "intransitive" else _thing_after(tokens, start, kind)
        if after:
            out.append(after)
        elif _graduates(token):
            out.append(STUDIES)  # "سالم تخرج": his studies, named by their kind
        elif kind == "intransitive" or _object_suffix(fold(token)):
            before = _thing_before(tokens, i)  # "والأهلي قفلته": what "it" is
            if not before and kind == "intransitive":
                before = _thing_after(tokens, start, "end")  # verb first: "انتهى الارتباط"
            if before:
                out.append(before)
    return tuple(dict.fromkeys(out))


def ends_only(text: str) -> bool:
    """An Arabic clause that tells an end and nothing beside it: a verb of
    ending names what ended ("لولو ماتت الله يرحمها", "وقفت الكيتو") and no
    verb exchanges it for something ("بدلت البيكانتو بهايبرد")."""
    if not arabic_ends(text):
        return False
    return not any(verb_class(t) == "exchange" for t in word_tokens(text) if has_arabic(t))


def arabic_clauses(sentence: str) -> list[str]:
    """An Arabic sentence cut where a writer joins two clauses: at a comma, and
    before "و" that opens a verb ("بعت اللكزس وخذيت جيب", "لولو ماتت …
    وجبنا قطو"), the verb keeping its "و"."""
    out: list[str] = []
    for piece in sentence.replace("،", ",").split(","):
        words: list[str] = []
        for word in piece.split():
            if words and _joins_a_verb(word.strip("".join(PUNCT))):
                out.append(" ".join(words))
                words = []
            words.append(word)
        if words:
            out.append(" ".join(words))
    return [p.strip() for p in out if p.strip()]


def unjoined(clause: str) -> str:
    """A clause without the "و" that joined it to the one before ("وجبنا قطو"
    standing alone is "جبنا قطو")."""
    first, _, rest = clause.partition(" ")
    return f"{first[1:]} {rest}".strip() if _joins_a_verb(first) else clause


def _joins_a_verb(word: str) -> bool:
    """ "و" written onto a verb ("وجبنا", "وخذيت"): where a writer joins a clause."""
    return word.startswith("و") and len(word) > 3 and may_be_verb(word[1:])


STUDIES = "الدراسة"


def _graduates(word: str) -> bool:
    return _GRADUATED in verb_lemmas(word)


_GRADUATED = fold("تخرج")


def word_tokens(text: str) -> list[str]:
    """Words and punctuation marks, each its own token."""
    head = text[:READ_CHARS]
    return "".join(f" {ch} " if ch in PUNCT else ch for ch in head).split()


def _object_suffix(word: str) -> bool:
    """A verb that carries its object as a pronoun ("قفلته", "بعناها")."""
    return word.endswith(("ته", "تها", "ناه", "ناها", "تهم"))


def is_adverb(token: str) -> bool:
    """An adverb in the accusative ("نهائياً", "أخيراً") or a dialect one."""
    return token.endswith(("ً", "ًا")) or fold(token) in _ADVERBS


def unreal_at(tokens: list[str], i: int) -> bool:
    """A negated verb, or one in the future, says nothing happened."""
    before = fold(tokens[i - 1]) if i > 0 else ""
    word = fold(tokens[i])
    return before in _NEGATIONS or before in _FUTURE or word.startswith(("سي", "ست", "سن", "حي"))


def _closes(token: str) -> bool:
    folded = fold(token)
    return not any(ch.isalnum() for ch in token) or folded in STOPS or verb_class(token) is not None


def _thing_after(tokens: list[str], start: int, kind: str) -> str:
    words: list[str] = []
    for token in tokens[start : start + 3]:
        if _closes(token) or is_adverb(token) or (fold(token).startswith("و") and (
            words or may_be_verb(token[1:])
        )):  # fmt: skip
            break  # "تخرج وتوظف": the next verb, not what ended
        if words and kind == "exchange" and fold(token).startswith(("ب", "ل")):
            break  # "بدلت البيكانتو بهايبرد": what it was exchanged for
        if words and fold(token).startswith("ل") and may_be_noun(token[1:]):
            break  # "أهديت زيتونة لمحمية": to whom, not a name ("ليفنار")
        words.append(token)
    return " ".join(words)


def _thing_before(tokens: list[str], end: int) -> str:
    words: list[str] = []
    for token in reversed(tokens[max(0, end - 2) : end]):
        if _closes(token):
            break
        words.insert(0, token)
    return " ".join(words)


def forms(word: str) -> frozenset[str]:
    """The stems a word may have (see the module doc): a leading و، ف، ب، ل or ك
    may be a clitic ("بكورال") or the word's own letter ("بيكانتو"), and a last
    ي or ك a possessive ("اشتراكي") or its own ("اشتراك"), so each both ways."""
    # the article is read before the letters are folded: "ألماني" opens with
    # a hamza's alef, not "ال" (folded, both read "الماني")
    bare = MARKS.sub("", word)
    for clitic in _CLITIC_BEFORE:
        if bare.startswith(clitic) and len(bare) - len(clitic) >= 3:
            return _endings(fold(bare[len(clitic) :]))
    folded = fold(bare)
    if folded[:1] in ("و", "ف", "ب", "ل", "ك") and len(folded) >= 4:
        # both ways, down to a three-letter stem: "بمشي" (a dialect's present) meets "المشية"
        return _endings(folded) | forms(bare[1:])
    return _endings(folded)


def _endings(word: str) -> frozenset[str]:
    """The word as written and without a possessive ending, its ta marbuta
    folded away ("سيارة", "سيارتي" and "سيارته" meet at سيار)."""
    out = {marbuta(word)}
    for ending in _POSSESSIVE:
        if word.endswith(ending) and len(word) - len(ending) >= 3:
            bare = word[: -len(ending)]
            out.add(marbuta(bare[:-1] + "ه" if bare.endswith("ت") else bare))
            break
    return frozenset(out)


def marbuta(word: str) -> str:
    return word[:-1] if word.endswith("ه") and len(word) >= 4 else word


@lru_cache(maxsize=8192)
def stems(text: str) -> tuple[frozenset[str], ...]:
    """The content words of `text`, each as the stems it may have (`forms`), in
    order."""
    tokens = word_tokens(text)
    return tuple(forms(t) for t in tokens if has_arabic(t) and len(t) >= 2 and fold(t) not in STOPS)


def clitic_noun(word: str) -> bool:
    """A preposition written onto a noun ("بمدرسة", "لمحمية", "بالبيت"): a
    place or a thing, not a name."""
    folded = fold(word)
    if folded.startswith(("بال", "لل", "وال")):
        return True
    # a name may open with the same letter on a short noun ("بسمة", "بهية")
    return folded[:1] in ("ب", "ل") and len(folded) >= 5 and may_be_noun(word[1:])


_PRONOUNS = frozenset(fold(w) for w in "أنا انا احنا نحن إحنا هو هي هم انت إنت أنت".split())


@lru_cache(maxsize=4096)
def named_lead(head: str) -> str | None:
    """The name an Arabic statement opens with when a verb follows it ("منة
    اتنقلت دبي", "لولو ماتت", "سالم تخرج"): a word that is not a verb, a
    pronoun, a noun with the article or a preposition written onto it, an
    adverb or a possessed noun ("شغلي انتهى"), then a verb the speaker does
    not say of themselves in the present ("أسكن")."""
    words = [w.strip("".join(PUNCT)) for w in head.split()[:2]]
    if len(words) < 2 or not all(has_arabic(w) and len(w) >= 2 for w in words):
        return None
    name, verb = words
    folded = fold(name)
    if folded.startswith("ال") or folded in _PRONOUNS or folded in STOPS or is_adverb(name):
        return None
    if only_verb(name) or clitic_noun(name) or (folded[:1] == "و" and may_be_noun(name[1:])):
        return None
    owned = name[:-1]
    if (
        folded.endswith("ي")
        and len(folded) > 3
        and any(may_be_noun(n) for n in (owned, owned[:-1] + "ة" if owned.endswith("ت") else owned))
    ):
        return None  # "شغلي", "سيارتي": the person's own thing
    if verb.startswith("ب") and verb[1:2] not in "اأيتن":
        return None  # "ماشية بكيا بيكانتو": ب on a noun, not a dialect's present ("بيشتغل")
    tries = [verb, dialect_form(verb)]
    said = any(verb_class(v) is not None or verb_lemma(v) or may_be_verb(v) for v in tries if v)
    bare = fold(verb)
    present_mine = verb.startswith("أ") or (  # "أسكن", "نسافر"; not "انتقل", "انتقلت"
        bare.startswith(("ا", "ن")) and len(bare) < 5 and not bare.endswith("ت")
    )
    return name if said and not present_mine else None


def dialect_form(word: str) -> str:
    """A dialect's "ات" form as the standard one ("اتنقلت" is انتقلت); '' when
    the word has none."""
    bare = MARKS.sub("", word)
    if bare.startswith(("ات", "إت")) and len(bare) >= 5:
        return f"ا{bare[2]}ت{bare[3:]}"
    return ""
