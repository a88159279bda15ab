"""Keys that let a name typed in Latin letters find the same name written in Arabic.

An English question about an Arabic page shares no words with it, and the
multilingual model places names poorly: "What year did Tesla die?" and a page
naming تسلا meet only by chance. Arabic spells a foreign name by its
consonants, with long vowels as letters and short vowels left out, so the
consonant skeleton of both spellings agrees: Tesla → tsl, تسلا → tsl;
Denver → dnfr, دنفر → dnfr; Panthers → bntrs, بانثرز → bntrs. Both sides fold
sounds that the other script merges or lacks (p and b; v and f; g, j, k, q; s,
z and x; th and t), drop vowels, h, w, y and their Arabic counterparts (ا و ي
ء ع ه ح), drop the article ال and its attached forms, and merge repeats.

A key is a BM25 term of its own (`~` + skeleton: `\\w` tokens never contain
`~`, so a key cannot meet a word). Pages get a key for every Arabic word;
queries get keys only for capitalised Latin words that do not open a sentence,
so ordinary English words do not fish among Arabic roots (all non-stopword
words: XQuAD en→ar hit@5 .879, against .916 for names only, before page
context). Keys with fewer than three consonants are dropped: two-letter
skeletons match too many Arabic words. English pages carry no keys, so an
English query over English pages scores exactly as before.
"""

from __future__ import annotations

import itertools

from substrate.index.arabic import fold_arabic, has_arabic
from substrate.safety.patterns import runs

KEY_PREFIX = "~"
MIN_CONSONANTS = 3

_LATIN_DIGRAPHS = (
    ("ph", "f"),
    ("th", "t"),
    ("sh", "s"),
    ("ch", "s"),
    ("ck", "k"),
    ("qu", "k"),
    ("kh", "k"),
    ("gh", "k"),
)
_LATIN = str.maketrans(
    {
        **dict.fromkeys("bp", "b"),
        **dict.fromkeys("cgjkq", "k"),
        **dict.fromkeys("fv", "f"),
        **dict.fromkeys("sxz", "s"),
        **{c: c for c in "dlmnrt"},
        **dict.fromkeys("aeiouyhw", None),
    }
)
_ARABIC_LETTERS = {
    "b": "بپ",
    "t": "تطث",
    "k": "جغقكگخ",
    "d": "دضذ",
    "r": "ر",
    "s": "زسصشظ",
    "f": "فڤ",
    "l": "ل",
    "m": "م",
    "n": "ن",
}
_ARABIC = str.maketrans(
    {letter: sound for sound, letters in _ARABIC_LETTERS.items() for letter in letters}
    | dict.fromkeys("حهةعءأإآاويىئؤ", None)
)
_ARTICLES = ("وال", "بال", "فال", "كال", "لل", "ال")  # longest first, as read
_NOT_SKELETON = runs("[^a-z]")
_LATIN_WORD = runs(r"[A-Za-z]+")
_ARABIC_WORD = runs(r"\w+")
_SENTENCE_END = ".?!:;\n"


def latin_skeleton(word: str) -> str:
    w = word.lower().replace("ce", "se").replace("ci", "si").replace("cy", "sy")  # a soft c
    for pair, sound in _LATIN_DIGRAPHS:
        w = w.replace(pair, sound)
    return _single_letters(_NOT_SKELETON.sub("", w.translate(_LATIN)))


def arabic_skeleton(word: str) -> str:
    """`word` already folded (`fold_arabic`)."""
    for article in _ARTICLES:
        if word.startswith(article):
            word = word[len(article) :]
            break
    return _single_letters(_NOT_SKELETON.sub("", word.translate(_ARABIC)))


def _single_letters(word: str) -> str:
    """A run of one letter as that letter once ("kll" -> "kl")."""
    return "".join(letter for letter, _ in itertools.groupby(word))


def page_keys(text: str) -> list[str]:
    """A key for every Arabic word of a chunk (repeats kept: they are term frequency)."""
    if not has_arabic(text):
        return []
    keys = []
    for word in _ARABIC_WORD.findall(fold_arabic(text)):
        if has_arabic(word):
            skeleton = arabic_skeleton(word)
            if len(skeleton) >= MIN_CONSONANTS:
                keys.append(KEY_PREFIX + skeleton)
    return keys


def _char_before(text: str, at: int) -> str:
    """The last character before `at` that is not white space ('' at the start)."""
    while at > 0 and text[at - 1].isspace():
        at -= 1
    return text[at - 1] if at > 0 else ""


def query_keys(text: str, stopwords: frozenset[str]) -> list[str]:
    """Keys for the names in a query: capitalised Latin words that do not open a
    sentence, spelled as typed and without a plural s (Broncos, برونكو)."""
    keys: set[str] = set()
    for match in _LATIN_WORD.finditer(text):
        word = match.group()
        before = _char_before(text, match.start())
        if not word[0].isupper() or not before or before in _SENTENCE_END:
            continue
        if word.lower() in stopwords:
            continue
        forms = {word, word[:-1]} if len(word) > 4 and word.endswith("s") else {word}
        for form in forms:
            skeleton = latin_skeleton(form)
            if len(skeleton) >= MIN_CONSONANTS:
                keys.add(KEY_PREFIX + skeleton)
    return sorted(keys)
