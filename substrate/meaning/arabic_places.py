"""Where an Arabic statement says the speaker lives or moved to: a verb or an
active participle of dwelling and the place after its preposition ("ساكن في
شقة في مدينة نصر", "استقرينا في مدينة العين"), a dialect's move with no
preposition ("اتنقلت دبي"), or a home told as new and where it is ("مفتاح
الشقة الجديدة في التجمع الخامس"). Read with the analyser (`arabic`)."""

from __future__ import annotations

from functools import lru_cache

from substrate.meaning.arabic import (
    MARKS,
    STOPS,
    bare_stems,
    dialect_form,
    fold,
    has_arabic,
    is_adverb,
    marbuta,
    readings_of,
    unreal_at,
    verb_class,
    verb_lemma,
    word_tokens,
)
from substrate.meaning.slot_rules import INSTITUTIONS_AR

# Dwelling, by the analyser's root (verb or active participle: "أسكن", "ساكن",
# "ساكنين") or lemma ("أقيم" of أقام, "انتقلتُ" of انتقل), and the prepositions
# that lead to where.
_DWELL_ROOTS = frozenset({"سكن", "عيش"})
_DWELL_LEMMAS = frozenset(fold(w) for w in "أقام انتقل عاش استقر".split())
_TO = frozenset(fold(w) for w in "في إلى الى على".split())
_PLACE_ENDS = frozenset(fold(w) for w in "مع من منذ عشان علشان لأن لان بعد قبل جنب".split())
_PLACE_WORDS = 5  # "شقة في مدينة نصر من": a place is a few words


@lru_cache(maxsize=16384)
def dwells(word: str) -> bool:
    """Whether the analyser reads `word` as living somewhere: a verb or an active
    participle of the root سكن, or a verb whose lemma is أقام, انتقل or عاش
    (a dialect's present with "ب" read as the word after it)."""
    bare = MARKS.sub("", word)
    tries = [bare, bare[1:]] if bare[:1] in ("ب", "و") and len(bare) > 4 else [bare]
    tries += bare_stems(fold(bare))  # "استقرينا": the person's ending off
    if "اي" in bare[1:3]:
        tries.append(bare.replace("اي", "ائ", 1))  # a dialect's "عايشة" is عائشة
    if dialect_form(bare):
        tries.append(dialect_form(bare))  # a dialect's "اتنقلت" is انتقلت
    for attempt in dict.fromkeys(tries):
        if verb_lemma(attempt) in _DWELL_LEMMAS:
            return True
        for reading in readings_of(attempt):
            kind = str(getattr(reading, "type", ""))
            lemma = fold(MARKS.sub("", str(getattr(reading, "lemma", ""))))
            if kind == "Verb" and lemma in _DWELL_LEMMAS:
                return True  # "أقيم": one of its readings is أقام
            if getattr(reading, "root", "") in _DWELL_ROOTS and (kind == "Verb" or "فاعل" in kind):
                return True
    return False


@lru_cache(maxsize=4096)
def dwelling(text: str) -> str:
    """Where `text` says the speaker lives or moved to ("ساكن في شقة في مدينة
    نصر", "استقرينا في مدينة العين"): the words after a verb of dwelling and its
    preposition, up to the next break; '' when it says none (negated, future)."""
    tokens = word_tokens(text)
    for i, token in enumerate(tokens):
        if not has_arabic(token) or len(token) < 3 or unreal_at(tokens, i) or not dwells(token):
            continue
        # where: after the first preposition of place within a few words ("أقيم
        # حالياً في …", "انتقلت الأسبوع الماضي إلى …")
        ahead = [j for j in range(i + 1, min(i + 5, len(tokens))) if fold(tokens[j]) in _TO]
        if ahead:
            words = _place(tokens, ahead[0] + 1)
        elif i + 1 < len(tokens) and _moves(token) and _bare_place(tokens[i + 1]):
            words = _place(tokens, i + 1)  # a dialect leaves the preposition out: "اتنقلت دبي"
        else:
            continue  # "ساكنة الحي طيبون": residents, not where one lives
        if words and not is_institution(words[0]):
            return " ".join(words)
    return _new_home(tokens)


def is_institution(word: str) -> bool:
    """A place of work by its kind, with or without the article ("انتقلت إلى
    مستشفى دلة" is a transfer between hospitals, not a home)."""
    return fold(word).removeprefix("ال") in _INSTITUTIONS


_INSTITUTIONS = frozenset(fold(w) for w in INSTITUTIONS_AR)


def _moves(word: str) -> bool:
    """A verb of moving house (انتقل), as written or in a dialect's form."""
    tries = [word, dialect_form(word), *bare_stems(fold(word))]
    return any(t and verb_lemma(t) == _MOVED for t in tries)


_MOVED = fold("انتقل")


def _place(tokens: list[str], start: int) -> list[str]:
    words: list[str] = []
    for word in tokens[start : start + _PLACE_WORDS]:
        if not any(ch.isalnum() for ch in word) or verb_class(word) is not None:
            break  # a comma, a stop, the next verb
        if fold(word) in _PLACE_ENDS:
            break  # "دبي مع جوزها", "مدينة نصر من زمان": with whom, since when
        words.append(word)
    return words


def _bare_place(token: str) -> bool:
    """A word that may name a place with no preposition before it: no article
    (a common noun), no stop, no adverb or day ("امبارح")."""
    folded = fold(token)
    return (
        has_arabic(token)
        and not folded.startswith("ال")
        and folded not in STOPS
        and not is_adverb(token)
        and not verb_lemma(token)
    )


# A home told as new: its nouns' stems (`forms`) and the word "new".
_HOMES = frozenset(marbuta(fold(w)) for w in "بيت منزل شقة فيلا دار سكن".split())
_NEW = frozenset(marbuta(fold(w)) for w in "جديد جديدة الجديد الجديدة".split())


def _is_home(token: str) -> bool:
    """A home's noun with the clitics and the possessive written onto it taken
    off ("بيتنا", "بالشقة", "وشقتي")."""
    word = fold(token)
    bare = {word}
    for clitic in ("وال", "بال", "فال", "عال", "ال", "و", "ب"):
        if word.startswith(clitic) and len(word) - len(clitic) >= 3:
            bare.add(word[len(clitic) :])
    for w in list(bare):
        for ending in ("نا", "ي", "ه", "ها", "هم"):
            if w.endswith(ending) and len(w) - len(ending) >= 3:
                stem = w[: -len(ending)]
                bare |= {stem, stem[:-1] + "ه" if stem.endswith("ت") else stem}
    return bool({marbuta(w) for w in bare} & _HOMES)


def _new_home(tokens: list[str]) -> str:
    """A home told as new, and where it is ("مفتاح الشقة الجديدة في التجمع
    الخامس", "بيتنا الجديد في الرفاع"), or a home that opens a clause and
    says where it is, the speaker's own ("بيتنا في الرفاع"; "البيت" may be any): a
    home mid-clause ("ترتيب البيت في الصباح") says what happened there."""
    for i, token in enumerate(tokens):
        if not _is_home(token):
            continue
        new = [j for j in range(i + 1, min(i + 3, len(tokens))) if marbuta(fold(tokens[j])) in _NEW]
        opens = (i == 0 or not any(ch.isalnum() for ch in tokens[i - 1])) and _owned(token)
        at = new[0] + 1 if new else (i + 1 if opens else len(tokens))
        if at < len(tokens) and fold(tokens[at]) in _TO:
            words = _place(tokens, at + 1)
            if words:
                return " ".join(words)
    return ""


def _owned(token: str) -> bool:
    """A home the speaker calls theirs ("بيتنا", "شقتي"): "البيت" may be any."""
    word = fold(token)
    return word.endswith(("نا", "ي")) and not word.startswith("ال")
