"""Which words never name a subject: the word lists a page title is checked by.

A title names what a page is about: a person, a pet, a place, a thing, an
endeavour. So it never starts with, and is never made of, a function word
(`the`, `with`, `في`), an adverb (`currently`, `finally`), a verb mainly
used as one (`finish`, `change`, `أتعلم`) or an adjective (`perfect`,
`initial`, `retired`). No tagger: fixed lists per language, with the regular
forms of the English verbs derived (`finishes`, `finished`, `finishing`)
and the `-ly` adverbs read by their ending; an Arabic word with the article
(`ال`) is a noun. `title_problem` says what is wrong with a title; the
filer names pages with `noun_phrase`, and the benchmarks count titles by
`title_problem`.
"""

from __future__ import annotations

from functools import lru_cache

from substrate.meaning.arabic import fold, is_adverb, may_be_noun, only_verb
from substrate.meaning.lexicon import RELATIONS_AR


def _words(spec: str) -> frozenset[str]:
    return frozenset(spec.split())


FUNCTION_EN = _words(
    """a an the this that these those there here it its it's i i'm i've i'd i'll me my mine
    myself we we're we've our ours us you your yours he him his she her hers they them their
    theirs who whom whose what which when where why how whether if then than so as at by for
    from in into of off on onto out over to under up upon with within without about above
    across after against along among around before behind below beneath beside between beyond
    but and or nor yet both either neither each every all any some many much more most few
    several such other another same own no not none one ones is are was were be been being am
    do does did done have has had having can could will would shall should may might must
    let's lets via per since until till while during though although because unless whereas
    also just only even still already again too very quite rather really yes yeah ok okay
    hi hello hey thanks thank please sorry oh well anyway btw lol haha wow"""
)
ADVERBS_EN = _words(
    """currently recently lately finally actually really basically honestly literally
    usually normally generally always never often sometimes rarely seldom ever now today
    tonight tomorrow yesterday soon later earlier already still yet once twice again almost
    nearly maybe perhaps probably possibly definitely certainly surely clearly obviously
    apparently hopefully luckily sadly unfortunately fortunately especially mostly mainly
    mostly partly fully totally completely entirely simply just only even instead anyway
    somehow somewhere anywhere everywhere nowhere together apart away back forward ahead
    abroad indoors outdoors upstairs downstairs overseas meanwhile otherwise therefore
    thus hence however moreover furthermore besides nevertheless nonetheless longer anymore
    forever constantly eventually immediately quickly slowly gradually suddenly exactly
    approximately roughly barely hardly truly seriously frankly personally initially
    originally previously formerly newly freshly regularly daily weekly monthly yearly"""
)
ADJECTIVES_EN = _words(
    """good great bad best better worse worst new old young big small large little long short
    high low early late first last next previous final initial main major minor key primary
    perfect amazing awesome nice cool fine lovely wonderful terrible awful horrible beautiful
    pretty ugly happy sad glad angry tired busy free full empty easy hard difficult simple
    complex quick slow fast strong weak hot cold warm cool wet dry clean dirty cheap expensive
    rich poor real true false right wrong sure certain possible impossible important
    interesting boring exciting excited fun funny serious strange weird normal usual common
    rare special general specific particular different similar same whole entire various
    several certain other recent current former future past present local global public
    private personal professional social political economic natural human extra spare
    retired favourite favorite fresh dark light bright red blue green yellow black white grey
    gray brown pink purple orange huge tiny massive gorgeous fantastic incredible brilliant
    excellent decent awkward weird crazy quiet loud calm nervous anxious worried proud
    grateful thankful lucky unlucky healthy sick ill ready able unable likely unlikely
    available busy open closed safe dangerous careful correct proper regular daily weekly
    monthly annual whole double single multiple separate ongoing upcoming latest
    newest oldest biggest smallest longest shortest highest lowest nearest closest cosy cozy
    sweet sour bitter spicy tasty delicious vegan vegetarian organic gluten-free crunchy
    soft hard smooth rough heavy light thin thick wide narrow deep shallow mad hectic manic
    intense stressful chaotic"""
)
# Verbs mostly used as verbs (a word that is as often a noun — work, plan, travel,
# trip, drink — names a page well enough and is not listed).
VERBS_EN = _words(
    """finish finished change changed start started begin began begun become became get got
    gotten go went gone make made take took taken give gave given come came see saw seen
    know knew known think thought feel felt find found tell told say said ask asked try tried
    want wanted need needed keep kept let put seem seemed leave left move moved live lived
    believe believed bring brought happen happened write wrote written sit sat stand stood
    lose lost pay paid meet met include included continue continued set learn learned learnt
    lead led understand understood watch watched follow followed stop stopped create created
    speak spoke spoken read allow allowed add added spend spent grow grew grown open opened
    win won offer offered remember remembered consider considered appear appeared buy bought
    wait waited serve served die died send sent expect expected build built stay stayed fall
    fell fallen cut reach reached kill killed remain remained suggest suggested raise raised
    pass passed sell sold require required decide decided return returned explain explained
    hope hoped develop developed carry carried break broke broken receive received agree
    agreed support supported hit produce produced eat ate eaten cover covered catch caught
    draw drew drawn choose chose chosen enjoy enjoyed love loved like liked hate hated prefer
    preferred use used switch switched quit study studied join joined adopt adopted decide
    moving getting
    going making taking doing having being trying looking thinking planning wanting feeling
    am is are was were be been do does did done has have had can could would should will
    shall may might must sound sounds seem seems apply applied improve improved manage
    managed prepare prepared finish finishing achieve achieved attend attended bake baked
    celebrate celebrated cook cooked clean cleaned fix fixed visit visited explore explored
    relax relaxed rest rested hang hung recover recovered realize realized realise realised
    wonder wondered guess guessed imagine imagined mention mentioned share shared post posted
    check checked tend tended"""
)
FUNCTION_AR = _words(
    """في من إلى الى على عن مع هذا هذه ذلك تلك هؤلاء هنا هناك كل بعض أي اي كان كانت يكون
    تكون لم لن لا ما ماذا متى أين اين كيف لماذا هل قد لقد سوف ثم أو او أم بل لكن لكنّ إن أن
    ان إذا اذا لو حتى منذ عند بين بعد قبل فوق تحت دون غير مثل أيضا أيضاً جدا جداً فقط الآن
    اليوم أمس غدا غداً هو هي هم هن أنا انا نحن أنت انت أنتم الذي التي الذين وهو وهي يا
    عندي لدي لديّ كل يوم اللي إللي يلي"""
)
# Arabic verbs a note opens with, first person and past, beside the imperfect
# prefixes read by shape in `_arabic_verb`.
VERBS_AR = _words(
    """أتعلم اتعلم أعمل اعمل أسكن اسكن أعيش اعيش أحب احب أريد اريد أفضل افضل أشرب اشرب
    أدرس ادرس أقرأ اقرأ أكتب اكتب ألعب العب أمارس امارس أذهب اذهب أزور ازور أحاول احاول
    أخطط اخطط أفكر افكر أشعر اشعر أستخدم استخدم بدأت انتقلت تركت اشتريت تبنيت تعلمت
    ذهبت زرت سافرت عملت سكنت درست تخرجت تزوجت صرت أصبحت اصبحت كنت بعت تعرفت قررت"""
)


@lru_cache(maxsize=16384)
def kind_of_word(word: str) -> str | None:
    """What a word is when it cannot name a subject (`function`, `adverb`,
    `verb`, `adjective`), or None when it may."""
    lower = word.lower().replace("’", "'").strip(".,;:!?\"'()")
    if not lower:
        return "function"
    if any("\u0600" <= c <= "\u06ff" for c in lower):
        return _arabic(lower)
    if lower in FUNCTION_EN:
        return "function"
    if lower in ADVERBS_EN or (lower.endswith("ly") and len(lower) > 4 and lower not in _LY_NOUNS):
        return "adverb"
    if lower in VERBS_EN or _inflected(lower):
        return "verb"
    if lower.endswith("ing") and len(lower) > 5 and lower not in ING_NOUNS:
        return "verb"  # "studying", "getting": a gerund is a doing, not a subject
    if lower in ADJECTIVES_EN:
        return "adjective"
    return None


# Words in -ing that name a thing or a pastime well enough to title a page.
ING_NOUNS = _words(
    """painting paintings running swimming cooking baking reading hiking climbing knitting
    gardening fishing camping cycling dancing singing writing drawing coding programming
    training meeting meetings wedding weddings building buildings clothing housing funding
    marketing engineering accounting nursing parenting surfing skiing sailing boxing rowing
    bowling shopping morning mornings evening evenings ceiling string spring thing things
    king ring wing pudding stuffing icing frosting dumpling dumplings clearing booking
    bookings listing listings setting settings offering recording recordings painting
    crossing landing pudding bedding flooring plumbing lighting heating wiring roofing
    skating jogging lifting yoga boarding tutoring mentoring coaching counselling
    counseling therapy screening vaccination"""
)
_LY_NOUNS = _words("family italy july assembly supply rally ally belly bully jelly lily holly")


def _inflected(word: str) -> bool:
    """A regular form of a listed verb: finishes, changes, finishing, stopped."""
    for ending, bases in (
        ("ing", (word[:-3], word[:-3] + "e", word[:-4])),
        ("ed", (word[:-2], word[:-1], word[:-3])),
        ("es", (word[:-2],)),
        ("s", (word[:-1],)),
    ):
        if (
            word.endswith(ending)
            and len(word) > len(ending) + 2
            and any(b in VERBS_EN for b in bases)
        ):
            return True
    return False


def _arabic(word: str) -> str | None:
    bare = word.removeprefix("و")
    if word in FUNCTION_AR or bare in FUNCTION_AR:
        return "function"
    if is_adverb(word):
        return "adverb"  # "الحين", "نهائياً"
    if _onto(bare):
        return "function"  # "عالشغل": على written onto a noun, where to, no subject
    if bare.startswith("ال"):
        return None  # the article: a noun
    if fold(word) in _KIN_AR:
        return None  # kin ("أخوي", "اخوي"), which the analyser may read as a verb
    if word in VERBS_AR or bare in VERBS_AR or only_verb(word):
        return "verb"  # a word the analyser reads only as a verb ("ربيت", "أشتغل")
    return None


# Kin words, which the analyser may read as a verb ("أخوي": my brother).
_KIN_AR = frozenset(fold(w) for w in RELATIONS_AR)


def _onto(word: str) -> bool:
    """A dialect's "على" written onto a noun with its article ("عالشغل" is على
    الشغل), which the analyser does not know as a word of its own ("عالمية" it
    knows)."""
    return word.startswith("عال") and not may_be_noun(word) and may_be_noun("ال" + word[3:])


def title_problem(title: str) -> str | None:
    """Why `title` names no subject, or None: it is empty, starts with a word that
    cannot name one (unless it opens a capitalised name: "New York", "Big Ben"),
    or is made only of such words."""
    words = [w for w in title.replace("-", " ").split() if w.strip(".,;:!?\"'()")]
    if not words:
        return "empty"
    first = kind_of_word(words[0])
    named = len(words) > 1 and all(w[:1].isupper() for w in words if w[:1].isalpha())
    if first is not None and not named:
        article = "an" if first[0] in "aeiou" else "a"
        shape = "is only" if len(words) == 1 else "starts with"
        return f"{shape} {article} {first} ({words[0]!r})"
    if all(kind_of_word(w) is not None for w in words):
        return "is made only of words that name nothing"
    return None


def noun_phrase(words: list[str], limit: int = 4) -> list[str]:
    """The first noun phrase in `words`: from the first word that may name a
    subject, through the words that may follow it in a name (nouns, and
    function words joining two, as in "العزف على العود"), at most `limit`."""
    start = next((i for i, w in enumerate(words) if kind_of_word(w) is None), None)
    if start is None:
        return []
    out = [words[start]]
    for i in range(start + 1, len(words)):
        if len(out) >= limit:
            break
        word = words[i]
        kind = kind_of_word(word)
        if kind is None:
            out.append(word)
            continue
        joined = i + 1 < len(words) and kind_of_word(words[i + 1]) is None
        if kind == "function" and word.lower() in _JOINERS and joined and len(out) + 2 <= limit:
            out.append(word)
            continue
        break
    return out


_JOINERS = _words("of and على في من & de")
