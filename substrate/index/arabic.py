"""Arabic spelling folded away before words are compared.

Arabic text varies in ways its readers ignore: short vowels and other marks
are usually left out but sometimes written (كَتَبَ = كتب), words are stretched
with tatweel (كـتـاب), hamza is written on alef or not (أحمد = احمد), and the
final ة / ه and ى / ي are used interchangeably. BM25 terms and entity names
are compared after folding all of these to one form, so a query spelled one
way finds a page spelled another. The marks are removed before the text is
split into words: they are combining characters, which `\\w` does not match,
so left in they would cut words apart.
"""

from __future__ import annotations

from functools import lru_cache

import py_rust_stemmers

from substrate.safety.patterns import runs

# Quranic annotation signs, harakat (tanween, fatha … sukun, maddah, hamza
# marks), superscript alef, small high signs, and tatweel.
_MARKS = runs("[\u0610-\u061a\u064b-\u065f\u0670\u06d6-\u06dc\u06df-\u06e8\u06ea-\u06ed\u0640]")
_FOLD = str.maketrans(
    {
        "\u0622": "\u0627",  # آ alef with madda
        "\u0623": "\u0627",  # أ alef with hamza above
        "\u0625": "\u0627",  # إ alef with hamza below
        "\u0671": "\u0627",  # ٱ alef wasla
        "\u0624": "\u0648",  # ؤ waw with hamza
        "\u0626": "\u064a",  # ئ yeh with hamza
        "\u0649": "\u064a",  # ى alef maqsura
        "\u0629": "\u0647",  # ة ta marbuta
    }
)
_ARABIC = runs("[\u0600-\u06ff\u0750-\u077f\u08a0-\u08ff]")


def has_arabic(text: str) -> bool:
    return _ARABIC.search(text) is not None


def strip_marks(text: str) -> str:
    """`text` without Arabic vowel marks and tatweel: the step before splitting words."""
    return _MARKS.sub("", text) if has_arabic(text) else text


def fold_arabic(text: str) -> str:
    """`text` with Arabic marks removed and letter variants folded; other scripts untouched."""
    return strip_marks(text).translate(_FOLD)


@lru_cache(maxsize=1)
def _stemmer() -> py_rust_stemmers.SnowballStemmer:
    return py_rust_stemmers.SnowballStemmer("arabic")


def arabic_term(word: str) -> str:
    """One Arabic word (marks already stripped) as a matching term: Snowball's
    Arabic stem (drops clitics and inflections: والمدرسة and مدرستها meet),
    then folded, so hamza and final-letter spellings meet too. Folding first
    would hide the endings the stemmer looks for (XQuAD ar→ar BM25 hit@5:
    .962 folded first, .975 stemmed first; README, Search index)."""
    return str(_stemmer().stem_word(word)).translate(_FOLD)


# Function words an Arabic question shares with every page (folded forms).
ARABIC_STOPWORDS = frozenset(
    fold_arabic(w)
    for w in """في من على إلى عن أن إن ما لا هو هي هذا هذه ذلك التي الذي الذين كان كانت
    قد و ثم أو أي مع عند بين كل بعد قبل حتى لم لن هل كيف متى أين ماذا لماذا كم""".split()
)
