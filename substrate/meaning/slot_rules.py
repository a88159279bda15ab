"""The slot patterns the offline filer reads facts with, English and Arabic.

Each rule is (slot, topic, single, pattern, proper): the first rule that
matches decides. `single`: a person has one value at a time (a new one
replaces the old without being told); `proper`: the value must be written
with a capital (a place or a name), so "we're in a hurry now" is no home. A
pattern names the value `v` and, when it says one, the value replaced `old`.
English patterns are case-insensitive and run on RE2 with ASCII word
boundaries; Arabic ones are bounded by spaces, since `\\b` does not see Arabic
letters. Kept apart from the engine (`slots`) so the tables can grow without
touching the rules that read them.
"""

from __future__ import annotations

from itertools import pairwise

_AR = "\u0600-\u06ff"
_V = r"(?P<v>[\w.&'’ -]{2,40}?)"  # a value: a few words, cut by `_END`
_OLD = r"(?P<old>[\w.&'’ -]{2,40}?)"
_END = r"(?:[.,;:!?)]|$| and | but | because | since | last | this | for | after | in (?:the |a )?(?:spring|summer|autumn|fall|winter|\d)| in (?:january|february|march|april|may|june|july|august|september|october|november|december)\b| now| these days| at the moment| nowadays| instead| so | as | with | where | which | who | near | next | at )"
_ROLES = (
    r"engineer|developer|manager|designer|teacher|nurse|doctor|analyst|scientist|lead|"
    r"director|consultant|architect|writer|intern|accountant|lawyer|chef|researcher|officer|"
    r"programmer|editor|professor|lecturer|pharmacist|therapist|technician|administrator|"
    r"founder|cto|ceo|vp|head of [\w ]+|specialist|coordinator|assistant|associate|principal"
)
Rule = tuple[str, str, bool, str, bool]
# Places of work by their kind: "بمدرسة الفرير", "في مستشفى الزهراء".
_INSTITUTIONS_AR = r"شركة|منظمة|مدرسة|جامعة|مستشفى|بنك|وزارة|مؤسسة|مصنع|مكتب|هيئة|عيادة|مطعم"
_NAME_AR = r"[^\s،؛.!؟,:]+"  # a word of a name, up to a comma or a stop
INSTITUTIONS_AR = frozenset(_INSTITUTIONS_AR.split("|"))
_DIETS = r"vegetarian|vegan|pescatarian|gluten-free|dairy-free|keto|paleo"
# Foods a diet leaves out, eaten again.
_FOODS = r"(?:meat|fish|dairy|eggs|cheese|chicken|seafood|pork|beef|bacon|gluten|bread)"
_FOODS_AR = (
    r"(?:اللحم|لحم|لحمة|اللحوم|فراخ|الفراخ|دجاج|الدجاج|سمك|السمك|بيض|البيض|جبن|الجبن|الألبان|ألبان)"
)

EN: list[Rule] = [
    (
        "name",
        "about",
        True,
        r"\b(?:my name is|my name's|call me|i go by|i'm called)\s+(?P<v>(?-i:[A-Z][\w'’-]+(?: [A-Z][\w'’-]+){0,2})|\w+)",
        True,
    ),
    (
        "name",
        "about",
        True,
        r"^(?:hi|hello|hey|hiya)?[,!]?\s*(?:i'm|i am|this is)\s+(?P<v>(?-i:[A-Z][\w'’-]+(?: [A-Z][\w'’-]+){0,2}))(?:[,.!]|$| and | from | but | here)",
        True,
    ),
    (
        "nickname",
        "about",
        False,
        r"\b(?:everyone|everybody|people|friends|my friends|most people|they|folks)\s+(?:calls?|know)\s+me\s+(?:as\s+)?(?P<v>\w+)",
        True,
    ),
    (
        "birthday",
        "about",
        True,
        r"\b(?:my (?:birthday|bday|birth date|date of birth) is|my birthday's|i was born)(?: on| in)?\s+(?:the\s+)?(?P<v>(?:\d{1,2}(?:st|nd|rd|th)?(?: of)? [a-z]{3,9}|[a-z]{3,9} \d{1,2}(?:st|nd|rd|th)?)(?:,? \d{4})?)",
        False,
    ),
    (
        "passport",
        "travel",
        True,
        r"\bmy passport (?:expires|runs out|is valid until|expiry date is|expiry is)(?: on| in)?\s+(?P<v>[\w ,]{3,30}?)(?:[.;!]|$| so | and )",
        False,
    ),
    (
        "age",
        "about",
        True,
        r"\b(?:i'm|i am|i just turned|i turned)\s+(?P<v>\d{1,3})(?:\s+years?(?: old)?)?(?:[.,!]|$| today| this| and)",
        False,
    ),
    (
        "employer",
        "work",
        True,
        rf"\b(?:i'm|i am|i've become|i became|i'll be)\s+(?:now\s+)?(?:the |a |an )?(?:new )?(?:[\w-]+\s+){{0,2}}(?:{_ROLES})\s+(?:at|for|with)\s+{_V}{_END}",
        True,
    ),
    (
        "role",
        "work",
        True,
        rf"\b(?:got|was|been|am being|'ve been) promoted\s+to\s+(?:a |an |the )?{_V}{_END}",
        False,
    ),
    (
        "role",
        "work",
        True,
        rf"\b(?:i work as|i'm working as|i got a job as|my (?:new )?(?:job title|title|role|position|job) is(?: now)?)\s+(?:a |an |the )?{_V}{_END}",
        False,
    ),
    (
        "role",
        "work",
        True,
        rf"\b(?:i'm|i am|i became|i've become|i'll be)\s+(?:now\s+)?(?:a|an|the)\s+(?P<v>(?:[\w-]+\s+){{0,2}}(?:{_ROLES}))\b",
        False,
    ),
    (
        "school",
        "education",
        True,
        rf"\b(?:switched|changed|moved) my (?:course|major|degree|subject|studies)(?: from {_OLD})? to {_V}{_END}",
        False,
    ),
    (
        "school",
        "education",
        True,
        rf"\b(?:i study|i'm studying|i am studying|i'm enrolled in|i enrolled in|i'm majoring in|my (?:course|degree|major) is|(?:a|my) degree in|i'm doing (?:a |an |my )?(?:degree|masters|master's|phd|course|diploma) in)\s+{_V}{_END}",
        False,
    ),
    (
        "employer",
        "work",
        True,
        rf"\b(?:i|i've|i have|i'm|i am|we|and|now)\s+(?:now\s+|currently\s+|still\s+|been\s+|just\s+)*(?:work|working)\s+(?:at|for)\s+{_V}{_END}",
        True,
    ),
    (
        "employer",
        "work",
        True,
        rf"\b(?:work is|work's|work’s|my work is|i accepted (?:an|the|a job) offer (?:from|at)|i signed (?:a contract|on) with|i (?:just |recently |finally )?joined|i(?:'ve| have)? (?:just |recently |finally )?started (?:a new job |a job |work |working )?(?:at|with)|started at|new job at|i got (?:a job|hired|an offer) (?:at|by|from)|my (?:new )?(?:employer|company) is|i'm at)\s+{_V}{_END}",
        True,
    ),
    (
        "employer",
        "work",
        True,
        rf"\b(?:switched|changed|new) jobs?\b.{{0,40}}?\b(?:i'm|i am|now) at\s+{_V}{_END}",
        True,
    ),
    (
        "employer",
        "work",
        True,
        rf"\b(?:i|we)\s+(?:just |recently |finally |have |'ve )?(?:started|took|accepted|landed|got|began)\s+(?:a |my |the )?(?:new |first )?(?:job|role|position|post)(?: as (?:a |an |the )?[\w -]{{2,40}}?)?\s+(?:at|with)\s+{_V}{_END}",
        True,
    ),
    ("employer", "work", True, rf"\bi (?:left|quit|resigned from)\s+{_OLD}{_END}", True),
    (
        "home",
        "home",
        True,
        rf"\b(?:we|i)\s+(?:now |currently |still )?(?:live|reside|stay)\s+(?:in|near|at|on)\s+(?:a \w+ (?:\w+ )?in\s+)?{_V}{_END}",
        True,
    ),
    (
        "home",
        "home",
        True,
        rf"\b(?:i'm|i am|we're|we are)\s+(?:now\s+)?(?:living|based|settled)\s+(?:in|near)\s+{_V}{_END}",
        True,
    ),
    (
        "home",
        "home",
        True,
        rf"\b(?:i|we)(?:'ve| have)?\s+(?:just |recently |finally )?(?:bought|purchased|rented|found|got|moved into|are moving into)\s+(?:a |an |our |my |the )?(?:new |first )?(?:house|home|flat|apartment|place|condo|cottage|bungalow|townhouse)\s+(?:in|near)\s+{_V}{_END}",
        True,
    ),
    (
        "home",
        "home",
        True,
        rf"\b(?:i've|i have|we've|we have)\s+(?:been\s+)?(?:living|lived|stayed|resided)\s+(?:in|near)\s+{_V}{_END}",
        True,
    ),
    (
        "home",
        "home",
        True,
        rf"\b(?:i|we)(?:'ve| have)?\s+(?:just |recently |finally )?(?:moved|relocated)(?: house| back| flats| home| down| up| over| out| away| across)?(?: from {_OLD})?(?: to\s+{_V})?{_END}",
        True,
    ),
    (
        "home",
        "home",
        True,
        rf"\b(?:home for me is|home is|home's|home’s|(?:my|our) (?:new )?(?:home|flat|apartment|house|address|place|digs) is(?: now)?(?: in| on| at)?|settled in|we're in|i'm in)\s+{_V}{_END}",
        True,
    ),
    (
        "home",
        "home",
        True,
        rf"\b(?:got|picked up|collected|have|received) (?:the |our |my )?keys (?:to|for) (?:our|my|the|a) (?:new |own |first )?(?:flat|house|home|place|apartment|cottage|condo)(?:\s+(?:in|on|at)\s+{_V})?{_END}",
        True,
    ),
    (
        "home",
        "home",
        True,
        rf"\b(?:we|i)(?:'ve| have)?\s+(?:just |finally |recently )?moved in(?:to (?:a |our |my |the )?(?:new )?(?:flat|house|place|apartment|home))?(?:\s+(?:in|on|at)\s+{_V})?{_END}",
        True,
    ),
    (
        "partner",
        "family",
        True,
        rf"\bmy (?:new )?(?:wife|husband|partner|girlfriend|boyfriend|fianc\w*|spouse)(?:'s name is|'s called| is called| is named| is|,)?\s+(?P<v>\w+){_END}",
        True,
    ),
    (
        "partner",
        "family",
        True,
        rf"\b(?:i'm|i am|i've been|i have been|i)\s+(?:now\s+)?(?:dating|engaged to|married to|seeing|going out with)\s+(?P<v>\w+){_END}",
        True,
    ),
    (
        "partner",
        "family",
        True,
        r"\b(?:i|we)\s+(?:broke up|split up|got divorced|separated)(?:\s+with\s+(?P<old>\w+))?",
        False,
    ),
    (
        "partner",
        "family",
        True,
        r"\b(?P<old>\w+) and i (?:broke up|split up|split|separated|got divorced)",
        True,
    ),
    # The bond named by itself, no partner's name: single, or with someone now
    # ("single and not looking", "we're officially together", "we got engaged").
    (
        "partner",
        "family",
        True,
        r"(?:^\W*|[.!?]\s+|\b(?:i'm|i am|im|i've been|honestly|so)[?!,]*\s+)(?:still |happily |currently |newly |very )?(?P<v>single)(?:[.,;!?]|$|\s+(?:and|again|now|these days|at the moment|since|for)\b)",
        False,
    ),
    (
        "partner",
        "family",
        True,
        r"\b(?:we're|we are|we've been)\s+(?:now\s+|officially\s+|finally\s+|back\s+)*(?P<v>together|engaged|married|a couple|an item)\b",
        False,
    ),
    (
        "partner",
        "family",
        True,
        r"\b(?:i|we)\s+(?:just\s+|finally\s+|have\s+|'ve\s+)?(?:got|getting)\s+(?P<v>married|engaged|hitched)\b",
        False,
    ),
    (
        "diet",
        "health",
        True,
        r"\b(?:i'm|i am|i've become|i became|i went|i've gone|i turned|going|gone)\s+(?:now |fully |strictly )?(?:a )?(?P<v>vegetarian|vegan|pescatarian|gluten-free|dairy-free|keto|paleo)\b",
        False,
    ),
    (
        "diet",
        "health",
        True,
        r"\bi(?: now)? (?:don't|do not|no longer|stopped|quit|gave up) eat(?:ing)? (?P<old>meat|fish|dairy|gluten|sugar|pork|beef|eggs)",
        False,
    ),
    (
        "tool:laptop",
        "tech",
        True,
        rf"\bmy (?:new |current |work )?(?:laptop|notebook|computer) is (?:a |an |the )?(?:new )?{_V}{_END}",
        False,
    ),
    (
        "tool:phone",
        "tech",
        True,
        rf"\bmy (?:new |current )?(?:phone|smartphone) is (?:a |an |the )?(?:new )?{_V}{_END}",
        True,
    ),
    ("diet", "health", True, r"\bi'm on an? (?P<v>[\w-]+) diet\b", False),
    # A diet said without "I'm": a note that opens with it ("Fully vegan since
    # 2021"), "it's gluten-free for me now", none at all ("no dietary
    # restrictions"), or foods a diet leaves out eaten again.
    (
        "diet",
        "health",
        True,
        rf"^\W*(?:(?:fully|strictly|mostly|totally|now|been)\s+)?(?P<v>{_DIETS})(?:[.,;:!—-]|$|\s+(?:since|for|now|and|these|at|most|mostly|all|again)\b)",
        False,
    ),
    (
        "diet",
        "health",
        True,
        rf"\b(?:it's|its|it is)\s+(?:strictly |now |all |only )?(?P<v>{_DIETS})\s+(?:for me|from now on|now)\b",
        False,
    ),
    (
        "diet",
        "health",
        True,
        r"\bno (?P<v>dietary restrictions|dietary requirements|food restrictions)\b",
        False,
    ),
    (
        "diet",
        "health",
        True,
        rf"\bi(?:'m| am|'ve| have)?\s+(?:started\s+|back to\s+)?eat(?:ing)?\s+(?P<v>{_FOODS}(?:(?:,| and| &) {_FOODS})*)\s+again\b",
        False,
    ),
    (
        "allergy",
        "health",
        False,
        rf"\b(?:i'm|i am)\s+(?:severely |very |mildly )?allergic to\s+{_V}{_END}",
        False,
    ),
    (
        "health",
        "health",
        False,
        r"\b(?:i have|i've got|i was diagnosed with|i've been diagnosed with|i suffer from)\s+(?:a\s+|an\s+)?(?P<v>asthma|diabetes|migraines?|arthritis|adhd|anxiety|depression|high blood pressure|celiac|coeliac|tinnitus|insomnia|eczema|a (?:bad |sprained )?\w+ injury)",
        False,
    ),
    (
        "pet",
        "pets",
        False,
        r"\b(?:i have|i've got|we have|we've got|i adopted|we adopted|i got|we got|i rescued|we rescued|we've adopted|i've adopted|we brought home|i brought home)\s+(?:a |an |two |three |our |my )?(?:new |little |lovely |beautiful |sweet )?(?:[\w-]+ ){0,2}?(?:dog|cat|puppy|kitten|parrot|rabbit|hamster|turtle|tortoise|horse|pony|greyhound|lurcher|whippet|labrador|lab|spaniel|terrier|collie|poodle|beagle|dachshund|retriever|pug|husky|shepherd|alsatian|boxer|corgi|chihuahua|guinea pig|budgie|ferret|snake|lizard|gecko|goldfish|fish|chicken|hen|bunny|moggy|tabby)s?,?\s+(?:called|named)\s+(?P<v>\w+)",
        True,
    ),
    (
        "pet",
        "pets",
        False,
        r"\b(?:my|our) (?:\w+ )?(?:dog|cat|puppy|kitten|parrot|rabbit|hamster|turtle|tortoise|horse|pony|greyhound|lurcher|whippet|labrador|lab|spaniel|terrier|collie|poodle|beagle|dachshund|retriever|pug|husky|shepherd|alsatian|boxer|corgi|chihuahua|guinea pig|budgie|ferret|snake|lizard|gecko|goldfish|fish|chicken|hen|bunny|moggy|tabby)(?:'s name is| is called| is named|,)?\s+(?P<v>\w+)",
        True,
    ),
]
AR: list[Rule] = [
    ("name", "about", True, rf"(?:^|\s)و?(?:اسمي|ناديني)\s+(?P<v>[{_AR}]+)", False),
    ("age", "about", True, r"(?:^|\s)و?(?:عمري|أبلغ من العمر)\s+(?P<v>\d{1,3})", False),
    (
        "role",
        "work",
        True,
        rf"(?:^|\s)و?(?:ترقيت|تمت ترقيتي|رُقّيت|رقيت)\s+(?:إلى|الى|ل)\s*(?P<v>[{_AR} ]{{2,30}}?)(?:\.|،|$| بعد| منذ| في)",
        False,
    ),
    (
        "role",
        "work",
        True,
        rf"(?:^|\s)و?(?:أعمل|اعمل|أشتغل)\s+(?:ك|كـ|بوظيفة\s+)(?P<v>[{_AR} ]{{2,30}}?)(?:\.|،|$| في| لدى| منذ)",
        False,
    ),
    (
        "role",
        "work",
        True,
        rf"(?:^|\s)و?(?:صرت|أصبحت|اصبحت)\s+(?P<v>(?:مدير|مديرة|مهندس|مهندسة|رئيس|رئيسة|معلم|معلمة|طبيب|طبيبة|مطور|مطورة|محاسب|محاسبة|مصمم|مصممة)[{_AR} ]{{0,30}}?)(?:\.|،|$| بعد| منذ| في)",
        False,
    ),
    (
        "role",
        "work",
        True,
        rf"(?:^|\s)و?(?:وظيفتي|منصبي|مسماي الوظيفي)(?:\s+الجديدة|\s+الجديد)?\s+(?:هي\s+|هو\s+|الآن\s+)*(?P<v>[{_AR} ]{{2,30}}?)(?:\.|،|$| في| منذ)",
        False,
    ),
    (
        "school",
        "education",
        True,
        rf"(?:^|\s)و?(?:أدرس|ادرس|أتخصص في|تخصصي)\s+(?P<v>[{_AR} ]{{2,30}}?)(?:\.|،|$| في| منذ)",
        False,
    ),
    (
        "employer",
        "work",
        True,
        rf"(?:^|\s)و?(?:أعمل|اعمل|أشتغل|صرت أعمل)\s+(?:الآن\s+|حاليا\s+|حالياً\s+)?(?:في|لدى|لصالح|مع)\s+(?:شركة\s+)?(?P<v>[\w{_AR} ]{{2,30}}?)(?:\.|،|$| منذ| كـ| ك)",
        False,
    ),
    # Work at a place named by its kind, after a verb of working in any
    # dialect ("بشتغل أستاذة رياضيات بمدرسة الفرير") or a job told as new
    # ("صار عندي شغل جديد! منسقة برامج بمنظمة اليونيسف").
    (
        "employer",
        "work",
        True,
        rf"(?:^|\s)و?(?:بشتغل|أشتغل|اشتغل|بشتغلي|أعمل|اعمل|بعمل|شغال|شغالة|موظف|موظفة)\s+(?:[{_AR}]+\s+){{0,3}}?(?:ب|في\s+)(?P<v>(?:{_INSTITUTIONS_AR})\s+{_NAME_AR}(?:\s+{_NAME_AR})?)",
        False,
    ),
    (
        "employer",
        "work",
        True,  # a move to a place of work is a transfer: "انتقلتُ رسمياً إلى مستشفى دلة"
        rf"(?:^|\s)و?(?:انتقلت|انتقلتُ|انتقلنا|اتنقلت|نقلوني|نقلت)\s+(?:[{_AR}]+\s+)?(?:إلى|الى|ل|على)\s*(?P<v>(?:{_INSTITUTIONS_AR})\s+{_NAME_AR}(?:\s+{_NAME_AR})?)",
        False,
    ),
    (
        "employer",
        "work",
        True,
        rf"(?:شغل جديد|وظيفة جديدة|عمل جديد|شغلي الجديد|وظيفتي الجديدة)\S*\s+(?:\S+\s+){{0,6}}?(?:ب|في\s+)(?P<v>(?:{_INSTITUTIONS_AR})\s+{_NAME_AR}(?:\s+{_NAME_AR})?)",
        False,
    ),
    (
        "employer",
        "work",
        True,
        rf"(?:^|\s)و?(?:انضممت|التحقت|بدأت عملاً جديداً|بدأت العمل|بدأت عملا جديدا)\s+(?:إلى|الى|ب|في|لدى)\s*(?:شركة\s+)?(?P<v>[\w{_AR} ]{{2,30}}?)(?:\.|،|$| هذا| الشهر| منذ)",
        False,
    ),
    (
        "employer",
        "work",
        True,  # a first day, week or month at a place is a start there: "أول أسبوع لي في سابك"
        rf"(?:^|\s)و?(?:أول|اول)\s+(?:يوم|أسبوع|اسبوع|شهر)(?:\s+لي)?\s+(?:في|ب|مع)\s*(?:شركة\s+)?(?P<v>[\w{_AR}]+)",
        False,
    ),
    (
        "employer",
        "work",
        True,
        rf"(?:^|\s)و?(?:تركت|استقلت من)\s+(?:العمل في\s+|شركة\s+)?(?P<old>[\w{_AR}]+)",
        False,
    ),
    (
        "home",
        "home",
        True,
        rf"(?:^|\s)و?(?:انتقلت|انتقلنا|رحلت|رحلنا)(?:\s+من\s+(?P<old>[{_AR}]+))?(?:\s+(?:إلى|الى|ل)\s*(?P<v>[{_AR}]+))?",
        False,
    ),
    (
        "home",
        "home",
        True,
        rf"(?:^|\s)و?(?:اشتريت|اشترينا|استأجرت|استأجرنا)\s+(?:بيتا|بيتاً|بيت|شقة|منزلا|منزلاً|منزل)(?:\s+جديد\S*)?\s+(?:في|ب)\s*(?P<v>[{_AR}]+)",
        False,
    ),
    (
        "home",
        "home",
        True,
        rf"(?:^|\s)و?(?:أسكن|اسكن|أعيش|اعيش|نسكن|نعيش|صرت أسكن|أصبحت أسكن)\s+(?:الآن\s+|حاليا\s+|حالياً\s+)?(?:في|ب)\s*(?:شقة\s+(?:صغيرة\s+)?في\s+)?(?P<v>[{_AR}]+)",
        False,
    ),
    (
        "partner",
        "family",
        True,
        rf"(?:^|\s)و?(?:زوجتي|زوجي|خطيبتي|خطيبي|شريكي|شريكتي)(?:\s+اسمها|\s+اسمه)?\s+(?P<v>[{_AR}]+)",
        True,  # a name: "زوجتي سارة", not "أهل زوجتي والجو أهدى"
    ),
    ("partner", "family", True, rf"(?:^|\s)و?(?:تزوجت|خطبت)(?:\s+من)?\s+(?P<v>[{_AR}]+)", True),
    (
        "partner",
        "family",
        True,  # the bond by itself: "أنا أعزب", "تزوجت الشهر اللي فات", "انخطبت"
        r"(?:^|\s)(?:أنا\s+|انا\s+|لسه\s+|لسا\s+|ما زلت\s+)?(?P<v>أعزب|اعزب|عزباء|عازب|عازبة|سنجل|تزوجت|تزوجنا|اتجوزت|اتجوزنا|انخطبت|اتخطبت)(?:$|[\s،.!])",
        False,
    ),
    (
        "partner",
        "family",
        True,  # engaged or bound to someone: "مخطوبة لأحمد", "مرتبط بواحدة اسمها سلمى", "خاطب ندى"
        rf"(?:^|\s)(?:خاطب\s+|خاطبة\s+|(?:مخطوبة|مخطوب|مرتبطة|مرتبط)\s+(?:(?:بواحدة|بواحد)\s+(?:اسمها|اسمه)\s+|ل|ب))(?P<v>[{_AR}]+)",
        True,
    ),
    (
        "diet",
        "health",
        True,
        r"(?:^|\s)و?(?:أنا\s+|صرت\s+|أصبحت\s+)?(?P<v>نباتي|نباتية|نباتياً|نباتي صرف)(?:\s|$|\.)",
        False,
    ),
    (
        "diet",
        "health",
        True,
        r"(?:^|\s)و?(?:لا آكل|لم أعد آكل|توقفت عن أكل)\s+(?P<old>اللحم|اللحوم|السكر|الخبز|الألبان)",
        False,
    ),
    (
        "diet",
        "health",
        True,  # back to foods a diet leaves out: "رجعت آكل فراخ وسمك"
        rf"(?:^|\s)و?(?:رجعت|رجعنا|عدت|عدنا|صرت|صرنا)\s+(?:آكل|اكل|ناكل|أكل|للأكل)\s+(?P<v>{_FOODS_AR}(?:\s+و(?:{_FOODS_AR}))*)",
        False,
    ),
    (
        "allergy",
        "health",
        False,
        rf"(?:^|\s)و?(?:عندي|لدي)\s+حساسية\s+(?:من\s+)?(?P<v>[{_AR}]+)",
        False,
    ),
    (
        "pet",
        "pets",
        False,
        r"(?:^|\s)و?(?:عندي|لدي|اقتنيت|تبنيت)\s+(?P<v>كلب|قطة|قط|ببغاء|أرنب|سمكة)",
        False,
    ),
]
# The bond by itself, as the partner rules read it: being single ends any
# partner; a bond told without a name ("we got married") ends only being single,
# never the partner a fact names.
PARTNER_SINGLE = frozenset("single أعزب اعزب عزباء عازب عازبة سنجل".split())
PARTNER_BONDS = frozenset(
    "together engaged married hitched تزوجت تزوجنا اتجوزت اتجوزنا انخطبت اتخطبت".split()
) | {"a couple", "an item", "couple", "item"}
CHANGE_EN = (
    r"(?i)\b(?:moved|relocated|switched|switching|changed|migrated|no longer|not anymore|"
    r"any ?more|now|nowadays|these days|new|got promoted|promoted|left|quit|replaced|instead|"
    r"stopped|gave up|became|become|broke up|split up|divorced|passed away|died|dropped|"
    r"just started|started using|goodbye|ditched|upgraded)\b"
)
# A first day, week or month somewhere is a start there; the place is the name
# that follows, word by capitalised word ("first week at Halcyon Health done").
FIRST_AT = r"(?i)\bfirst (?:day|week|month|shift|fortnight) (?:at|with) (?:the )?"
# Words that say a value took another's place, not only that it holds now:
# a thing a statement with one of these names is what changed.
REPLACING_EN = (
    r"(?i)\b(?:now|instead|any ?more|no more|no longer|these days|nowadays|from now on)\b"
)
REPLACING_AR = (
    r"(?:^|\s)(?:الآن|الان|حاليا|حالياً|الحين|هلق|هلأ|هلا|دلوقتي|دلوقت|بدل|بدلا|بدلاً|"
    r"لم أعد|لم اعد|ما عاد|ما عدت|ما عدنا|خلاص)(?:$|[\s،.!؟])"
)
CHANGE_AR = (
    r"(?:انتقلت|انتقلنا|لم أعد|لم اعد|لم نعد|صرت|أصبحت|اصبحت|الآن|حاليا|حالياً|الجديد|الجديدة|"
    r"بدلا|بدلاً|تركت|غيرت|غيّرت|توقفت|ترقيت|ترقيتي|استقلت|انفصلت)"
)
PAST = r"(?i)\b(?:i|we) used to\b|\bback when\b|\bwhen i was (?:a kid|young|little)\b|(?:^|\s)(?:كنت|كنا)\s"
# Values a fact says ended, wherever it says them.
OLDS_EN = [
    r"(?i)\b(?:switched|moved|changed|migrated|went|upgraded|transferred|relocated)\s+(?:\w+\s+){0,2}?from\s+(?:a |an |the |my )?(?P<old>[\w.+#&' -]{2,40}?)\s+(?:to|over to)\s",
    r"(?i)\b(?:no longer|don't|do not|stopped|quit|gave up)\s+(?:\w+\s+){0,2}?(?:use|using|work at|work for|live in|have|own|drink|drinking|eat|eating|like|play|playing|at|with|in)\s+(?:a\s+|an\s+|my\s+|the\s+)?(?P<old>[\w.+#&' -]{2,30}?)(?:[.,;!]|$| and| any| because| since)",
    r"(?i)\binstead of\s+(?:a |an |the |my )?(?P<old>[\w.+#&' -]{2,30}?)(?:[.,;!]|$| and| because)",
    r"(?i)\b(?:goodbye|bye bye|farewell|ditched|dropped|abandoned|replaced)\s+(?:a |an |the |my )?(?P<old>[\w.+#&' -]{2,30}?)(?:[.,;!]|$| and| because| for| with)",
    r"(?i)\bto replace (?:a |an |the |my )?(?P<old>[\w.+#&' -]{2,30}?)(?:[.,;!]|$| and| because)",
    r"(?i)\b(?:after|since) (?P<old>\w+) and i (?:broke up|split up|split|separated)",
    r"(?i)\b(?:broke up|split up|separated|divorced) (?:with|from) (?P<old>\w+)",
    r"(?i)\bi (?:left|quit|resigned from)\s+(?P<old>[\w.&' -]{2,30}?)(?:[.,;!]|$| and| because| for| to| after)",
]
OLDS_AR = [
    rf"(?:لم أعد|لم اعد|لم نعد)\s+(?:[{_AR}]+\s+)?(?:في\s+|ب)?(?P<old>[{_AR}]+)",
    rf"من\s+(?P<old>[\w{_AR}]+)\s+(?:إلى|الى)\s+(?P<v>[\w{_AR}]+)",
    rf"(?:^|\s)[وف]?(?:بدلا من|بدلاً من|بدل)\s+(?P<old>[\w{_AR}]+)",
    # a whole word: "تركت" is not the end of "اشتركت" ("I subscribed")
    rf"(?:^|\s)[وف]?(?:تركت|توقفت عن)\s+(?P<old>[\w{_AR}]+)",
]
FROM_TO = (
    r"(?i)\b(?:switched|moved|changed|migrated|went|upgraded|transferred)\s+(?:\w+\s+){0,2}?from\s+(?:a |an |the |my )?"
    r"(?P<old>[\w.+#&' -]{2,40}?)\s+(?:to|over to)\s+(?:a |an |the )?(?P<v>[\w.+#&' -]{2,40}?)(?:[.,;!]|$| and| because| last| this| for| now| in the| every| at | on )"
)
FROM_TO_AR = rf"من\s+(?P<old>[\w{_AR}]+)\s+(?:إلى|الى)\s+(?P<v>[\w{_AR}]+)"
FILLER = (
    r"(?i)(?:^|,\s*|\s)(?:honestly|to be honest|tbh|frankly|if i'?m honest|i think|i guess|i suppose|"
    r"kind of|kinda|sort of|basically|literally|personally|to be fair|i'd say|really)(?:,|\b)"
)
REPLIES = r"(?i)\b(?:please )?(?:keep|make) (?:your |the |all |my )?(?:answers|replies|responses|explanations)\s+(?P<v>short|shorter|brief|briefer|concise|detailed|longer|simple|simpler|technical|casual|formal)"
PREF = (
    r"(?i)\b(?:i (?:really |much |definitely |still |now |do |actually )?prefer|i'd (?:much |really )?rather(?: have| drink| use)?|"
    r"i (?:now )?(?:like|love|enjoy) (?P<more>\w+) (?:more than|better than)|i'm (?:more )?(?:a|an) (?P<person>\w+) (?:person|drinker|fan))\s*(?P<v>[\w.+# -]{2,30}?)?"
    r"(?:\s+(?:over|to|than|rather than|instead of)\s+(?P<old>[\w.+# -]{2,30}?))?(?:[.,;!]|$| and| because| in| for| when| these| now| nowadays|,)"
)
SWITCHED_TO = r"(?i)\b(?:switched|changed|gone back|went back|converted)\s+(?:over |back )?to\s+(?P<v>[\w.+# -]{2,30}?)(?:[.,;!]|$| and| because| in| for| when| now)"
DRINK_EVERY = r"(?i)\b(?:it's|its|it is|now it's|it’s)\s+(?:all |mostly |just |only |always )?(?P<v>[\w -]{2,30}?)\s+(?:every morning|every day|each morning|in the mornings?|for breakfast|with breakfast|first thing)"
DRINK_NOW = r"(?i)\b(?:i|i'm|we)\s+(?:now |mostly |usually |only )?(?:drink|drinking|have)\s+(?P<v>[\w -]{2,25}?)\s+(?:now|instead|these days|nowadays|in the mornings?|every morning)"
FAVOURITE = r"(?i)\bmy (?:new |current |all-time )?favou?rite\s+(?P<obj>[\w -]{2,20}?)\s+(?:is|are|has become|is now)\s+(?P<v>[\w.+# '-]{2,30}?)(?:[.,;!]|$| and| because| now)"
PREF_AR = (
    rf"(?:^|\s)(?:أفضّل|أفضل|افضل|صرت أفضل)\s+(?P<v>[{_AR}]+)(?:\s+(?:على|عن)\s+(?P<old>[{_AR}]+))?"
)
DRINK_AR = rf"(?:^|\s)(?:صرت أشرب|أشرب|اشرب|نشرب)\s+(?P<v>[{_AR}]+)"
USE_EN = (
    r"(?i)\b(?:use|uses|using|used|switched|switching|moved|migrated|code in|coding in|code|write in|"
    r"writing in|work in|working in|work on|got|bought|have|run|running|on|prefer|love|like|is|"
    r"rewrote|rewriting|learning|learned|picked up|upgraded|built with|built in|uses)\b"
)
USE_AR = r"(?:أستخدم|استخدم|أستعمل|استعمل|انتقلت|اشتريت|عندي|أبرمج|صرت)"
EMAIL = r"(?P<v>[\w.+-]+@[\w-]+(?:\.[\w-]+)+)"
PHONE = r"(?P<v>\+?\d[\d ()-]{5,18}\d)"
PHONE_WORDS = r"(?i)\b(?:phone|number|mobile|cell|call me|reach me|whatsapp|text me)\b|(?:رقم|هاتف|جوال|موبايل)"
# Vehicles by what they are, or a car by its make.
VEHICLE_KINDS = {
    "car": "car", "motor": "car", "hatchback": "car", "estate": "car", "suv": "car",
    "bike": "bike", "bicycle": "bike", "e-bike": "bike", "ebike": "bike",
    "motorbike": "motorbike", "motorcycle": "motorbike", "scooter": "scooter",
    "van": "van", "campervan": "van", "camper": "van",
}  # fmt: skip
CAR_MAKES = (
    "fiat ford toyota skoda volkswagen vw bmw audi tesla honda nissan kia hyundai renault "
    "peugeot citroen citroën mini volvo mazda subaru mercedes vauxhall seat cupra jeep polestar "
    "lexus porsche dacia suzuki mitsubishi opel saab jaguar"
).split()
VEHICLE = (
    r"(?i)\b(?:i|we)(?:'ve| have)?\s+(?:just |finally |recently |now )?(?:bought|got|picked up|leased|purchased|ordered|drive|ride|own|have)\s+"
    r"(?:a |an |my |our |the )?(?:new |used |second-hand |secondhand |brand new |shiny |little |old )?(?P<v>(?:[\w-]+ ){0,2}?(?:KINDS))\b"
    r"|(?i)\b(?:traded|swapped|part-exchanged|exchanged) (?:in )?(?:the |my |our )?(?:old )?(?:\w+ )?(?:for|to) (?:a |an )?(?:new |used )?(?P<v2>(?:[\w-]+ ){0,2}?(?:KINDS))\b"
)
PROVIDER_KINDS = {
    "gp": "gp", "doctor": "gp", "doctors": "gp", "surgery": "gp", "dentist": "dentist",
    "gym": "gym", "vet": "vet", "hairdresser": "hairdresser", "barber": "barber",
    "physio": "physio", "physiotherapist": "physio", "optician": "optician",
    "therapist": "therapist", "accountant": "accountant", "bank": "bank",
    "mechanic": "mechanic", "broadband": "broadband", "energy": "energy",
    "electricity": "energy", "nursery": "nursery", "childminder": "nursery",
}  # fmt: skip
# The person's page a provider of each kind is filed on (else health).
PROVIDER_TOPIC = {"vet": "pets", "bank": "money", "accountant": "money", "energy": "home",
                  "broadband": "home", "nursery": "family", "mechanic": "vehicles",
                  "hairdresser": "preferences", "barber": "preferences",
                  "insurance": "money"}  # fmt: skip
# Providers named by two words, whose head alone says nothing ("Elmwood Health
# Centre", "my current account"), by kind.
PROVIDER_COMPOUNDS = {
    **dict.fromkeys(["health centre", "health center", "medical centre", "medical center",
                     "medical practice", "group practice", "family practice"], "gp"),
    **dict.fromkeys(["dental practice", "dental surgery", "dental clinic"], "dentist"),
    **dict.fromkeys(["animal hospital", "veterinary practice", "veterinary surgery",
                     "veterinary clinic", "animal clinic"], "vet"),
    **dict.fromkeys(["current account", "bank account", "joint account",
                     "building society"], "bank"),
    **dict.fromkeys(["leisure centre", "fitness centre", "sports centre"], "gym"),
}  # fmt: skip

# The last words of a street's name ("Dalry Road", "Kelvin Street").
STREET_WORDS = frozenset(
    """road street lane avenue drive close way crescent terrace hill square place row
    gardens grove walk mews court parade boulevard rd st ave""".split()
)


def provider_kind(word: str) -> str | None:
    """The provider kind a word names, in the singular or the plural ("Vets")."""
    return PROVIDER_KINDS.get(word) or PROVIDER_KINDS.get(word.removesuffix("s"))


def compound_kind(words: tuple[str, ...]) -> str | None:
    """The provider kind two adjacent words name ("health centre": a GP)."""
    pairs = (f"{a} {b}" for a, b in pairwise(words))
    return next((PROVIDER_COMPOUNDS[p] for p in pairs if p in PROVIDER_COMPOUNDS), None)


def provider_named(value: str) -> bool:
    """A value that names a provider by its kind ("Kasol Animal Hospital",
    "Pawsitive Vets", "the Elm Surgery"): a place one goes to, not a home."""
    words = tuple(value.lower().split())
    last = provider_kind(words[-1]) if words else None
    return last is not None or compound_kind(words[-2:]) is not None


PROVIDER = (
    r"(?i)\b(?:my|our) (?:new |current |local )?(?P<kind>KINDS)(?: provider| supplier| practice)? is(?: now)?\s+(?:at |with |called |named |the )?(?P<v>[\w.&' -]{2,40}?)(?:[.,;!]|$| and | but | in | on | near | now)"
    r"|\b(?:i|we)(?:'ve| have)?\s+(?:just |finally |recently |now )?(?:registered|signed up|joined|switched|moved|changed)(?: to| with| at)? (?:a |an |the )?(?:new )?(?P<kind2>KINDS)s?(?: provider| supplier| practice)?(?: to| at| called)?\s+(?P<v2>[\w.&' -]{2,40}?)(?:[.,;!]|$| and | but | in | on | near | now)"
)
COMMUTE = r"(?i)\b(?:i|we)\s+(?:now |usually |mostly |always |normally |just )?(?P<v>cycle|bike|walk|drive|run|commute by \w+|take the (?:train|bus|tube|metro|tram|ferry)|get the (?:train|bus|tube))\s+(?:in )?to (?:work|the office|uni|school|my job)"
