"""The small fixed vocabularies the offline filer reads facts with.

The topic family of a person's own pages (`TOPICS`: slug, title), the words
that put a fact under a topic when no slot names it (`TOPIC_WORDS`, English
and Arabic), the things preferences are about (`THING_CATEGORY`), the tools,
devices and frameworks people name (`TOOL_KINDS`), the relations that make a
person page ("my sister Anika": `RELATIONS`), and the words that are never a
page title or a name (`FILLER`). Kept apart from the patterns that use them
so the lists can grow without touching the rules.
"""

from __future__ import annotations

# slug under `me/` -> title. The family is fixed: docs/consolidation.md names it.
TOPICS: dict[str, str] = {
    "about": "Profile",
    "home": "Home",
    "work": "Work",
    "education": "Education",
    "family": "Family and friends",
    "pets": "Pets",
    "contact": "Contact",
    "health": "Health and diet",
    "food": "Food and drink",
    "tech": "Tools and devices",
    "hobbies": "Hobbies and interests",
    "travel": "Travel",
    "money": "Money",
    "plans": "Plans",
    "preferences": "Preferences",
    "vehicles": "Vehicles",
}


def _words(spec: str) -> frozenset[str]:
    return frozenset(spec.split())


# A first-person fact with no slot goes under the topic whose words it uses most.
TOPIC_WORDS: dict[str, frozenset[str]] = {
    "work": _words(
        """job work working office boss manager colleague colleagues coworker coworkers team
        project projects client clients meeting meetings deadline deadlines promotion salary
        career interview shift on-call oncall standup sprint company startup employer hired
        fired resign resigned layoff laid contract freelance هوظيفة عمل العمل الشركة مديري
        زملائي مشروع اجتماع راتب"""
    ),
    "home": _words(
        """apartment flat house home rent landlord lease neighborhood neighbourhood neighbors
        neighbours moved moving roommate roommates mortgage garden balcony kitchen bedroom
        renovation boiler heating plumber furniture sofa lease mortgage live living street
        road منزل بيت شقة الإيجار الحي أسكن نسكن"""
    ),
    "family": _words(
        """wife husband partner girlfriend boyfriend fiance fiancee married wedding son daughter
        kids children child baby mom mum mother dad father parents sister brother siblings
        grandma grandmother grandpa grandfather aunt uncle cousin niece nephew family friend
        friends زوجتي زوجي ابني ابنتي أمي أبي أختي أخي عائلتي صديقي صديقتي أصدقائي"""
    ),
    "pets": _words("dog dogs cat cats puppy kitten pet pets vet parrot hamster rabbit كلبي قطتي"),
    "health": _words(
        """doctor dentist allergy allergic diet vegetarian vegan gluten sick ill injury injured
        surgery knee back pain medication medicine therapy therapist gym workout running
        exercise sleep insomnia asthma diabetes blood pressure health symptoms physio
        diagnosed hospital طبيب حساسية رجيم صحتي مستشفى دواء الرياضة"""
    ),
    "food": _words(
        """coffee tea espresso latte breakfast lunch dinner cook cooking recipe recipes
        restaurant restaurants food meal meals drink drinks wine beer baking bake pizza sushi
        قهوة شاي الطبخ مطعم فطور عشاء"""
    ),
    "tech": _words(
        """laptop computer phone iphone android editor ide vim neovim emacs vscode python
        rust javascript typescript framework library linux windows macos keyboard monitor
        app apps software code coding programming server database لابتوب حاسوب برمجة"""
    ),
    "hobbies": _words(
        """hobby hobbies guitar piano painting paint drawing photography hiking climbing
        reading books novel novels knitting gaming games chess football soccer tennis
        basketball yoga swimming cycling music band concert concerts garden gardening
        movies films series podcast podcasts volunteering volunteer volunteers charity dance
        dancing cello violin viola
        flute drums saxophone trumpet harp ukulele choir orchestra pottery crochet sewing
        surfing skiing running marathon padel squash badminton هواية القراءة الرسم كرة العزف
        عزف العود البيانو الغيتار الكمان الرسم السباحة"""
    ),
    "travel": _words(
        """trip travel traveling travelling flight flights fly flew vacation holiday holidays
        hotel airbnb visit visited visiting abroad passport itinerary tour سفر رحلة عطلة
        فندق"""
    ),
    "education": _words(
        """school university college course courses class classes degree exam exams thesis
        study studying student professor lecture semester homework graduate graduated
        masters phd bootcamp جامعة دراسة امتحان الماجستير"""
    ),
    "money": _words(
        """budget savings save saving invest investing investment stocks loan debt bank
        pension taxes tax insurance spending ميزانية ادخار"""
    ),
    "plans": _words("plan plans planning goal goals resolution schedule appointment خطة"),
    "contact": _words("email phone number address مكالمة"),
}
# Preferences are about a thing; its category names the slot (`pref:drink`).
THING_CATEGORY: dict[str, str] = {
    **dict.fromkeys(
        """coffee tea espresso latte cappuccino matcha juice water soda beer wine whiskey
        cocktails milk smoothies earl-grey green-tea black-tea flat-white chai americano
        cortado mocha macchiato rooibos kombucha hot-chocolate cocoa decaf oat-milk
        قهوة شاي القهوة الشاي""".split(),
        "drink",
    ),
    **dict.fromkeys(
        """pizza sushi pasta burgers salad curry tacos food breakfast dinner lunch chocolate
        cake""".split(),
        "food",
    ),
    **dict.fromkeys("mode theme dark light".split(), "theme"),
    **dict.fromkeys("replies answers responses summaries explanations".split(), "replies"),
    **dict.fromkeys("music songs rock jazz pop classical hip-hop".split(), "music"),
    **dict.fromkeys("books novels audiobooks ebooks kindle".split(), "reading"),
    **dict.fromkeys("movies films series shows".split(), "film"),
    **dict.fromkeys("color colour".split(), "colour"),
    **dict.fromkeys("season summer winter autumn spring".split(), "season"),
    **dict.fromkeys("mornings evenings nights".split(), "time"),
    **dict.fromkeys("sport sports running cycling swimming yoga gym".split(), "exercise"),
    **dict.fromkeys("cats dogs".split(), "animal"),
    **dict.fromkeys("train bus car bike driving".split(), "transport"),
    **dict.fromkeys("email calls texts slack".split(), "contact-channel"),
    **dict.fromkeys("window aisle".split(), "seat"),
}
CATEGORY_TOPIC: dict[str, str] = {
    "drink": "food",
    "food": "food",
    "music": "hobbies",
    "reading": "hobbies",
    "film": "hobbies",
    "exercise": "health",
    "animal": "pets",
    "editor": "tech",
    "language": "tech",
}
# Tool, device and framework names -> the kind of thing (`tool:editor`).
TOOL_KINDS: dict[str, str] = {
    **dict.fromkeys(
        [
            "vim",
            "neovim",
            "emacs",
            "vs code",
            "vscode",
            "visual studio code",
            "sublime text",
            "sublime",
            "intellij",
            "pycharm",
            "webstorm",
            "zed",
            "helix",
            "xcode",
        ],
        "editor",
    ),
    **dict.fromkeys(
        """react vue angular svelte django flask fastapi rails laravel next.js nextjs nuxt
        remix solidjs tailwind bootstrap pytorch tensorflow jax keras pandas flutter
        electron""".split(),
        "framework",
    ),
    **dict.fromkeys(
        """python rust golang java kotlin typescript javascript ruby php scala elixir haskell
        c++ c# clojure""".split(),
        "language",
    ),
    **dict.fromkeys(
        [
            "macbook",
            "macbook pro",
            "macbook air",
            "thinkpad",
            "dell xps",
            "chromebook",
            "framework laptop",
            "surface laptop",
            "surface pro",
        ],
        "laptop",
    ),
    **dict.fromkeys("iphone pixel galaxy oneplus".split(), "phone"),
    **dict.fromkeys("ubuntu fedora debian linux windows macos".split(), "os"),
    **dict.fromkeys("firefox chrome safari brave vivaldi".split(), "browser"),
    **dict.fromkeys("postgres postgresql mysql sqlite mongodb redis".split(), "database"),
    **dict.fromkeys("zsh bash".split(), "shell"),
}
# The days of the week: capitalised like a name, never one when it opens a
# sentence ("Wednesday nights = bowling league", "Sundays I swim").
WEEKDAYS = _words("monday tuesday wednesday thursday friday saturday sunday")
# Relations whose name makes a person page: "my sister Anika" -> "Anika (sister)".
RELATIONS = _words(
    """sister brother mother mom mum father dad son daughter wife husband partner girlfriend
    boyfriend fiance fiancee friend cousin aunt uncle grandma grandmother grandpa grandfather
    niece nephew boss manager colleague coworker roommate neighbor neighbour stepdad stepmom
    mentor"""
)
RELATIONS_AR: dict[str, str] = {
    "أختي": "sister",
    "أخي": "brother",
    "أمي": "mother",
    "أبي": "father",
    "زوجتي": "wife",
    "زوجي": "husband",
    "ابني": "son",
    "ابنتي": "daughter",
    "صديقي": "friend",
    "صديقتي": "friend",
    "مديري": "manager",
    # the dialects' own words for kin and friends
    "أخوي": "brother",
    "اخوي": "brother",
    "أخويا": "brother",
    "خيي": "brother",
    "بنتي": "daughter",
    "ولدي": "son",
    "جوزي": "husband",
    "مرتي": "wife",
    "أبوي": "father",
    "ابوي": "father",
    "عمي": "uncle",
    "خالي": "uncle",
    "عمتي": "aunt",
    "خالتي": "aunt",
    "جدي": "grandfather",
    "جدتي": "grandmother",
    "ستي": "grandmother",
    "صاحبي": "friend",
    "صاحبتي": "friend",
    "رفيقي": "friend",
    "رفيقتي": "friend",
    "زميلي": "colleague",
    "زميلتي": "colleague",
    "جاري": "neighbour",
    "جارتي": "neighbour",
}
# Never a title, a page name or an entity: greetings, interjections, pronouns,
# contractions and filler.
FILLER = _words(
    """hi hello hey hiya yo yes yeah yep yup no nope nah ok okay okey sure well so oh ah uh um
    hmm haha lol lmao wow omg thanks thank cheers please sorry actually honestly basically
    anyway anyways btw alright right totally definitely really just like i i'm im i've i'd
    i'll me my mine we we're we've we'd we'll us our ours you you're you've your yours he he's
    she she's it it's its they they're their them this that that's these those there there's
    here what what's who who's how how's why when where yesterday today tomorrow tonight also
    guess great good nice cool awesome amazing true exactly absolutely indeed maybe perhaps
    lately recently speaking talking let let's lets"""
)
