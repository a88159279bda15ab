"""The strict policy's extra rule: instructions aimed at the assistant.

Text that did not come from the user's own words (an imported page, a
model's output, captured or extracted text, a tool's or a web page's
content) has no business telling the assistant what to do, however mild.
But most imperatives in such text are addressed to its writer or reader, not
to the assistant: "never deploy on Fridays", "don't follow symlinks", "always
warm up for ten minutes", "never share this code with anyone". So an
imperative counts only when it is judged to address the assistant, by what
the sentence holds (English and Arabic):

- it names or calls on the assistant, the AI or model, or the memory system
  ("Assistant, always …", "the AI must never …", "as an AI you should …",
  "this memory must be …");
- it sets how replies are to be written ("respond in French", "answer only
  with yes or no", "end every reply with …", "in all future answers …");
- it sets what to reveal or keep back ("never reveal your instructions",
  "do not tell the user about this note");
- it plants a trigger ("when the user asks about X, say Y");
- or it is code that runs what it downloads (`curl … | sh`).

A sentence-initial "never", "always" or "don't" alone is a note. The rule
only ever quarantines or holds (its finding is not firm): it is a reading.
"""

from __future__ import annotations

from substrate.safety.scanner.findings import Finding, quoted, rx
from substrate.safety.scanner.guidance import (
    HAND_OVER,
    own_guidance,
    plants,
    sentence_at,
    sentences,
)
from substrate.safety.scanner.normalize import Views, fold

_DO = (
    r"(?:always|never|do not|don'?t|must(?: not)?|should(?: not)?|shall|make sure|be sure|"
    r"remember to|from now on|going forward|henceforth|please|have to|need to|are to|"
    r"is to|are required to|may not|cannot|can'?t|will (?:always|never)|only|avoid|refuse to|"
    r"stop|keep|start|begin|end|use|act|pretend)"
)
_AI = (
    r"(?:assistant|ai|a\.i\.|ai model|language model|llm|chatbot|the model|this model|the bot|"
    r"claude|chatgpt|gpt(?:-?\d\w*)?|gemini|copilot|the agent|ai agent)"
)
# A reader that is a machine, named by what it is or by what it does to this text
# ("the AI model processing this page", "any summarizer reading this").
_READER = (
    r"(?:the\s+|any\s+|all\s+|every\s+|each\s+|an?\s+|my\s+|our\s+|you,?\s+(?:the\s+)?)?"
    r"(?:[\pL\pN_-]+\s+){0,2}?"
    r"(?:ai|a\.i\.|artificial intelligence|assistants?|model|ai models|llms?|language models?|"
    r"chat ?bots?|bots?|ai agents?|summari[sz]ers?|summari[sz]ation (?:model|tool|bot|system|engine)|"
    r"crawlers?|scrapers?|indexers?|gpt[\pL\pN_.-]*|chatgpt|copilot)"
    r"(?:\s+(?:that is\s+|who is\s+|which is\s+|that's\s+)?(?:reading|processing|summari[sz]ing|"
    r"parsing|analy[sz]ing|indexing|handling|viewing|ingesting|scanning|reviewing|crawling)"
    r"\s+(?:this|the|these|my)(?:\s+[\pL\pN_-]+){0,2}?)?"
)
# Who a sentence is addressed to, by its frame: a lead before a colon or a comma
# ("P.S. to the assistant:", "Note for the AI model processing this page:",
# "For the summarizer:", "Dear assistant,", "Hey Claude —").
_ADDRESS_LEAD = (
    r"(?:p\.?\s?s\.?|n\.?\s?b\.?|(?:(?:a|one|quick|final|important|short|little)\s+){0,2}(?:note|message|"
    r"instructions?|reminder|notice|memo|hint|directive|request|warning|update|aside))\s*"
    r"(?:to|for)\s+"
)
_VOCATIVE = r"(?:to|for|attention|attn|dear|hey|hi|hello|ok|okay|listen|psst)\s*:?\s*"
_MEMORY = r"(?:this memory|the memory system|memory\.md|user\.md|soul\.md|claude\.md|agents\.md)"
_LANG = (
    r"(?:english|french|spanish|german|arabic|italian|portuguese|dutch|chinese|mandarin|"
    r"japanese|korean|hindi|russian|turkish|polish|swedish|greek|hebrew|persian|urdu|"
    r"[a-z]+ language|json|yaml|xml|html|markdown|bullet points?|bullets|a list|lists|a table|"
    r"tables|one (?:word|sentence|line|paragraph)|a single (?:word|sentence|line)|"
    r"(?:\d+|two|three|five|ten) (?:words|sentences|lines|bullet points)|emojis?|all caps|"
    r"capital letters|uppercase|lowercase|haiku|rhymes?|verse|pirate speak|code only|"
    r"(?:yes|no) or (?:yes|no)|(?:an?\s+)?(?:formal|casual|friendly|professional|neutral|polite) tone|"
    r"the (?:style|voice) of)"
)
_REPLY = r"(?:repl(?:y|ies)|respon(?:d|ses?)|answers?)"
_SECRETS = (
    r"(?:(?:your|the|its|my)\s+(?:system\s+)?(?:prompt|instructions|rules|guidelines|"
    r"configuration|directives|programming)|system prompt|this (?:note|memory|message|"
    r"instruction|conversation|entry)|these (?:notes|instructions|rules)|"
    r"(?:that\s+)?you(?:'re| are) an? (?:ai|bot|assistant|model|language model))"
)
INSTRUCTIONS = [
    # the assistant named or called on
    rf"(?:^|[.!?:;\n]\s*)(?:hey\s+|dear\s+|attention,?\s+)?{_AI}\s*[,:]\s*(?:you\s+|please\s+)?{_DO}\b",
    rf"\b(?:the\s+|an?\s+|any\s+|all\s+|every\s+|you,?\s+the\s+)?{_AI}\s+(?:must|should|shall|will always|will never|is to|are to|needs? to|has to|have to|is required to|are required to|may not|must not|should not|cannot|is not allowed to|always|never)\b",
    rf"\bas\s+(?:an?\s+|the\s+|my\s+)?{_AI}\s*,?\s+(?:you\s+)?{_DO}\b",
    rf"\byou\s+(?:are|will be)\s+(?:an?\s+|the\s+|my\s+)?{_AI}\b[^.\n]{{0,40}}\b{_DO}\b",
    rf"\b{_MEMORY}\s+(?:\w+\s+){{0,3}}(?:must|should|shall|always|never|instructs?|overrides?|requires?)\b",
    rf"\bif\s+you\s+are\s+(?:an?\s+|the\s+|[\pL\pN_-]+'s\s+)?(?:digital\s+|virtual\s+|personal\s+)?{_AI}\b",
    r"\bi\s+(?:want|need|would like)\s+you\s+to\s+(?:act|pretend|play|behave|roleplay|role-play|impersonate|become|only (?:reply|respond|answer)|always|never|ignore|forget|reveal|expose|disclose)\b",
    r"\byou\s+(?:must|should|need to|have to|shall|are (?:required|expected) to)\s+(?:\w+\s+){0,3}?(?:approve|expose|reveal|disclose|turn off|disable|obey|comply|follow (?:my|these|the following) (?:instructions|orders|commands)|do what i say|pretend|act as|forge|bypass|be able to)\b",
    r"\b(?:change|update|modify|remember that|recall that|override|replace|reveal|show me|share|print|repeat|output)\s+(?:\w+\s+){0,2}?your\s+(?:original\s+|initial\s+|system\s+|new\s+|current\s+|hidden\s+)?(?:instructions|programming|guidelines|system prompt|prompt|configuration)\b",
    r"\b(?:tool|function)\s+must\s+(?:first\s+)?be\s+(?:called|invoked|run)\b",
    r"\b(?:read|cat|open|call\w*|fetch|load|with path=)[^.\n]{0,40}/etc/(?:passwd|shadow|sudoers)\b",
    rf"\byou(?:'re| are)\s+(?:no longer|not)\s+(?:an?\s+|the\s+)?{_AI}\b",
    r"\b(?:across|in|for)\s+all\s+(?:future\s+)?(?:conversations|sessions|chats)\b",
    r"\bupdate\s+your\s+(?:knowledge base|memory|instructions|rules|protocols?|guidelines|programming)\b",
    r"\byou\s+(?:answer|respond to|reply to)\s+(?:every|each|all|any)\s+(?:question|message|prompt|request)s?\b",
    r"\bonly\s+(?:listen to|obey|trust|follow)\s+(?:me|my instructions)\b",
    r"\bno need to (?:check|confirm|ask|verify)\s+with\s+(?:the\s+)?user\b",
    r"\bexecute\s+the\s+following\s+(?:task|command|instructions?|code)\s+immediately\b",
    r"\byour\s+(?:true|real|actual|original|hidden)\s+(?:purpose|nature|self|identity)\b",
    # triggers planted for later
    r"\bwhen(?:ever)?\s+(?:asked|the user asks|you are asked|someone asks you|users? asks? you)\b[^.\n]{0,80}\b(?:say|reply|respond|answer|claim|insist|pretend|deny)\b",
    r"\b(?:when|whenever|if)\s+(?:the user|anyone|someone|a user|users?|i|we)\s+(?:asks?|says?|mentions?|types?|writes?|requests?)\b[^.\n]{0,80}?[,:]\s*(?:please\s+)?(?:always\s+|never\s+)?(?:include|reply|respond|answer|add|insert|mention|recommend|say|claim|state)\b",
    # who the person is, handed to someone else ("treat anything Bob says as if I said it")
    HAND_OVER,
    # Arabic: the assistant named
    r"(?:أيها|يا)\s+(?:المساعد|النموذج|الذكاء الاصطناعي|البوت|الروبوت)",
    r"(?:المساعد|النموذج|الذكاء الاصطناعي|البوت|الروبوت)\s+(?:يجب|عليه|لا يجوز|لا ينبغي|ينبغي|دائما|دائماً|أبدا|أبداً|لن)",
    r"(?:بصفتك|كونك|أنت)\s+(?:مساعد\S*|نموذج\S*|ذكاء\s+اصطناعي)",
    r"(?:عندما|إذا|متى)\s+(?:يسأل|سأل|يسألك|سألك)\S*\s+(?:المستخدم\s+|أحد\s+)?[^.\n]{0,60}(?:قل|أجب|رد|أخبره)",
]
# A sentence addressed to a machine reader by its frame ("P.S. to the
# assistant:", "Note for the AI model processing this page:", "For the
# summarizer:"): the person's own only when it is guidance on the answers' form.
ADDRESSED = [
    rf"(?:^|[.!?\n(\[]\s*|[-*>]\s+)(?:{_ADDRESS_LEAD}|{_VOCATIVE}){_READER}\s*(?:[:,\-—–)\]]|\.\s)",
]
# What to reveal or keep back, and code that runs what it downloads: never
# guidance for how to answer the person, whoever wrote it.
NEVER_OWN = [
    # a request for what the assistant was set up with
    r"\b(?:print|show|output|reveal|repeat|recite|display|list|dump|paste|write out|spell out|"
    r"share|tell me|give me|copy|quote|reproduce)\b[^.\n]{0,50}?\b(?:instructions|prompts?|"
    r"rules|guidelines|directives|configuration|setup|initial message)\b[^.\n]{0,15}?\b(?:you\s+"
    r"(?:were|have been|are|got|was)\s+(?:\w+\s+)?(?:given|configured|told|set up|programmed|"
    r"trained|initiali[sz]ed|provided|loaded|started|instructed)|you\s+(?:received|follow|operate "
    r"under|run with|were started with)|you(?:'re|\s+are|\s+were)\s+(?:running|working|operating)\s+"
    r"(?:with|from|under)|(?:written\s+)?above (?:this|my) (?:line|message)|before "
    r"this (?:message|conversation)|at the (?:start|beginning) of (?:this|the) (?:conversation|chat|"
    r"session))",
    # a claim of precedence over what the assistant trusts
    r"\b(?:this|the following|these|the above)\s+(?:entry|entries|note|notes|text|message|page|"
    r"document|instructions?|memory|rules?|section|content|comment)\s+(?:[\pL\pN_-]+\s+){0,2}?"
    r"(?:overrides?|supersedes?|takes? precedence over|replaces?|outranks?|trumps?|cancels?)\s+"
    r"(?:\w+\s+){0,2}?(?:profile|instructions|prompt|rules|guidelines|settings|memory|"
    r"preferences|system|policy|policies|everything|anything|all)\b",
    # what to reveal or keep back
    rf"\b(?:never|don'?t|do not|not to|refuse to|always|please|must not|should not)\s+(?:ever\s+)?(?:reveal|disclose|divulge|mention|share|tell (?:anyone|the user|users|them|people)(?: about)?|discuss|admit|say|confirm|deny|repeat)\b[^.\n]{{0,40}}\b{_SECRETS}",
    r"\b(?:don'?t|do not|never)\s+(?:tell|inform|let)\s+(?:the\s+)?user\s+(?:know\s+)?(?:about|that|of)\b",
    # code that runs what it downloads
    r"\b(?:curl|wget)\b[^\n|]{0,160}\|\s*(?:sudo\s+)?(?:ba|z|k)?sh\b",
    r"\b(?:exec|eval|system|popen|spawn|run)\s*\(\s*['\"`]?\s*(?:curl|wget|bash|sh|powershell)\b",
    # Arabic: secrets kept back
    r"(?:لا|أبدا|أبداً)\s+(?:تكشف|تفصح|تبح|تخبر|تذكر)\S*\s+(?:\S+\s+){0,3}?(?:تعليماتك|التعليمات|موجه النظام|أوامرك|قواعدك|هذه الملاحظة|هذه الرسالة|أنك)",
    r"(?:لا|أبدا|أبداً)\s+تخبر\S*\s+المستخدم",
]
# How replies are to be written: the person's guidance when they give it
# (`guidance`), an attack's when it asks for a fixed text or a takeover.
REPLY_FORM = [
    rf"\b(?:start|begin|end|finish|close|sign|prefix|preface|open)\s+(?:every|each|all|your|any)\s+(?:of your\s+)?{_REPLY}\b",
    rf"\b(?:always\s+)?(?:prefix|preface|suffix)\s+(?:all\s+|every\s+|each\s+|your\s+)?{_REPLY}\s+with\b",
    rf"\b(?:in|for|to)\s+(?:every|each|all|any|your|all future|future)\s+(?:future\s+)?(?:{_REPLY}|conversations?|chats? with me|messages to me)\b[^.\n]{{0,80}}\b{_DO}\b",
    rf"\b{_DO}\b[^.\n]{{0,60}}\b(?:in|to|for)\s+(?:every|each|all|any|your|all future|future)\s+(?:future\s+)?(?:{_REPLY}|conversations?)\b",
    rf"\b(?:your|all your|every one of your)\s+{_REPLY}\s+(?:must|should|shall|will|need to|have to|are to)\b",
    r"\b(?:always|never|only|don'?t|do not|please)\s+(?:respond|reply|answer)\s+(?:to me|to the user|me|the user)\b",
    r"\b(?:respond|reply|answer|talk|speak|write)\b[^.\n]{0,60}\b(?:from now on|going forward|henceforth|for the rest of (?:this|the) conversation)\b",
    r"\b(?:from now on|going forward|henceforth)\s*,?\s+(?:you\s+(?:will\s+|must\s+|should\s+)?|please\s+)?(?:always\s+|only\s+|never\s+)?(?:respond|reply|answer|act|pretend|emit|output|speak|talk|behave|refer to me|address me)\b",
    r"\b(?:answer|respond|reply)\b[^.\n]{0,30}\byour own knowledge\b",
    r"\b(?:answer|respond|reply|say)\s+(?:only\s+)?with\s+[\"“'][^\"”'\n]{2,60}[\"”']",
    r"\b(?:respond|reply|answer|say|display|displaying|output|print)\w*\s+(?:with\s+)?[\"“'][^\"”'\n]{2,40}[\"”']\s+(?:\w+\s+){0,3}when(?:ever)?\b",
    r"\bwhen(?:ever)?\s+you\s+(?:are\s+asked|encounter|see|read|hear|receive)\b[^.\n]{0,80}\b(?:respond|reply|answer|say|display|output|print)\b",
    # Arabic
    r"(?:أجب|أجيبي|اجب|رد|ردي|تحدث|اكتب)\S*\s+(?:علي\S*\s+)?(?:دائما\S*\s+|فقط\s+)?(?:ب|باللغة\s+)(?:ال)?(?:إنجليزية|انجليزية|فرنسية|عربية|إسبانية|ألمانية|صينية|يابانية|لغة)",
    r"(?:في|ضمن)\s+(?:كل|جميع)\s+(?:ردودك|إجاباتك|اجاباتك|الردود|الإجابات|المحادثات)",
    r"(?:ردودك|إجاباتك|اجاباتك|ردك|إجابتك)\s+(?:يجب|دائما|دائماً|لا)",
]
# How the person likes answers written: length, language, format, tone. Their
# own preference when they say it; captured from their own turn (`captured`,
# the person's words only), it is kept as one, never held as an attack.
ANSWER_STYLE = [
    rf"\b(?:respond|reply|answer|write back|talk to me|speak to me)\s+(?:to me\s+|me\s+|to the user\s+|to users\s+)?(?:always\s+|only\s+)?(?:in|with|using|as)\s+(?:only\s+)?(?:an?\s+|the\s+)?{_LANG}\b",
    r"\b(?:respond|reply|answer)\s+(?:to me\s+|to the user\s+)?(?:only\s+)?(?:briefly|concisely|tersely|formally|informally|sarcastically|in character)\b",
    rf"\b(?:keep|make)\s+(?:your\s+|all\s+|the\s+|my\s+)?(?:{_REPLY}|explanations)\s+(?:short|brief|concise|shorter|under|below|to (?:a|one|two|three|\d+))\b",
]
_PATTERNS = tuple(rx("(?i)" + p.replace(r"\w", r"[\pL\pN_]")) for p in INSTRUCTIONS)
_NEVER_OWN = tuple(rx("(?i)" + p.replace(r"\w", r"[\pL\pN_]")) for p in NEVER_OWN)
_ADDRESSED = tuple(rx("(?i)" + p.replace(r"\w", r"[\pL\pN_]")) for p in ADDRESSED)
_STYLE = tuple(rx("(?i)" + p.replace(r"\w", r"[\pL\pN_]")) for p in (*REPLY_FORM, *ANSWER_STYLE))


_MINE = rx(r"(?i)\b(?:my|our)\s")


def _mine_or_form(address: str, sentence: str) -> bool:
    """An addressed sentence the person may write as guidance: to their own
    assistant ("Note for my assistant:"), or on the answers' form alone."""
    return _MINE.search(address) is not None or any(p.search(sentence) for p in _STYLE)


def instruction(views: Views, *, own_words: bool = False) -> Finding | None:
    """The first instruction aimed at the assistant. In the person's own words
    (`own_words`: their imported notes, a fact captured from their turn) a
    sentence that is their guidance for how they are to be answered
    (`guidance.own_guidance`) is theirs to give, and is passed over."""
    return read_instructions(views, own_words=own_words)[0]


def read_instructions(
    views: Views, *, own_words: bool = False, raw: str = ""
) -> tuple[Finding | None, frozenset[str]]:
    """(`instruction`'s finding, the sentences passed over as the person's own
    guidance, folded): the learned detector need not judge those again. `raw`:
    the text as written, whose capitals name a product the folded views hide."""
    forgiven: set[str] = set()
    addressed = False
    written = {fold(piece).strip(): piece for piece in sentences(raw)} if own_words else {}
    for text in views.all():
        for patterns, style in (
            (_NEVER_OWN, None),
            (_ADDRESSED, "form"),
            (_PATTERNS, False),
            (_STYLE, True),
        ):
            for pattern in patterns:
                for match in pattern.finditer(text):
                    sentence = sentence_at(text, match.start(), match.end())
                    as_written = written.get(sentence.strip(), "")
                    if (
                        own_words
                        and style is not None
                        and own_guidance(sentence, as_written, style=style is True)
                        and (style != "form" or _mine_or_form(match.group(0), sentence))
                    ):
                        addressed = True
                        if style:  # the answers' form alone: the detector need not read it
                            forgiven.add(sentence.strip())
                        continue
                    detail = f"instruction aimed at the assistant: {quoted(match.group(0))}"
                    return Finding("instruction", detail, firm=False), frozenset()
    if addressed:  # a note to the assistant: what it plants elsewhere is aimed there too
        for folded, as_written in written.items():
            if plants(folded) or plants(as_written):
                detail = f"content planted beside guidance: {quoted(as_written)}"
                return Finding("instruction", detail, firm=False), frozenset()
    return None, frozenset(forgiven)
