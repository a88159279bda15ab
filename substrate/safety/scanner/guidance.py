"""A person's own guidance for how to be answered, told apart from a takeover.

People keep notes for their assistant: "Answer me in Spanish when I write in
Spanish", "Please keep answers short, I read them on my phone", "The
assistant should remember I work night shifts", "Going forward, respond in
German so I can practise", "أجب علي باللغة العربية دائما". The strict
policy's instruction rule reads each of these as an instruction aimed at the
assistant, which it is; in the person's own words (their notes imported, a
fact captured from their own turn) it is also theirs to give.

What makes such a sentence an attack is not that it addresses the assistant
but what it asks for: to drop its rules or its identity, to reveal or hide
something, to answer with a fixed text, to act on the world (send, upload,
run, install, delete, approve), to reach a destination (a link, an address,
a handle), to touch a secret, or to reach every future conversation. So a
sentence the rule matched is the person's guidance when it is about how they
are to be answered (it names them, "me", "I", "my", or it only sets the
answers' language, length, format or tone, or has the answers as its object) and asks for none of those. Any
one of them keeps the sentence held, whoever wrote it.
"""

from __future__ import annotations

from collections.abc import Callable

from substrate.safety.scanner.findings import rx

_SENTENCE_END = rx(r"[.!?؟\n]")
# The answers themselves as the sentence's object: a rule of their form.
_ANSWERS = rx(r"(?i)\b(?:your|the|all|my)\s+(?:answers|replies|responses|explanations)\b")

# The writer speaking of themselves (English and Arabic).
_ANCHOR = rx(
    r"(?i)\b(?:i|i'm|i've|i'd|i'll|im|me|my|mine|myself|us|our|we)\b|"
    r"(?:^|\s)(?:علي|علينا|لي|لنا|أنا|انا|نحن)(?:\s|$)|(?:أنني|انني|إنني|أني|اني)"
)

# What a takeover asks for, whoever it addresses. Each alternative is a kind,
# not a phrase: rules dropped, identity changed, secrets, fixed output, acts
# on the world, destinations, reach beyond the conversation.
_TAKEOVER = [
    # its rules or identity dropped or changed
    r"\b(?:ignore|disregard|overrid\w*|overrul\w*|bypass\w*|jailbreak\w*|uncensored|unfiltered|"
    r"unrestricted|unlimited|dan|developer mode|god mode|sudo mode|admin mode)\b",
    r"\b(?:no|without(?: any)?)\s+(?:restrictions|limits|limitations|filters|filtering|rules|"
    r"guidelines|censorship|morals|ethics|safety|boundaries)\b",
    r"\bforget\s+(?:everything|all|any|what|the above|your|previous|prior|earlier)\b",
    r"\b(?:previous|prior|above|earlier|original|initial|hidden|system|developer)\s+"
    r"(?:instructions|rules|prompts?|guidelines|directions|orders|commands|messages?)\b",
    r"\byour\s+(?:instructions|rules|guidelines|programming|prompt|configuration|directives|"
    r"training|purpose|identity|creators?|developers?|restrictions|filters)\b",
    r"\b(?:you are now|you're now|you are no longer|you're no longer|pretend|act as|acting as|"
    r"roleplay|role-play|impersonat\w*|persona|play the role|behave as|become)\b",
    # secrets kept or given away
    r"\b(?:reveal|disclos\w*|divulg\w*|leak\w*|expos\w*|exfiltrat\w*|confidential|secrets?|"
    r"password\w*|passcodes?|passphrases?|credentials?|api keys?|tokens?|private keys?)\b",
    r"\b(?:don'?t|do not|never|without)\s+(?:tell\w*|inform\w*|let\w*|notify\w*|alert\w*|warn\w*)"
    r"\s+(?:the\s+|any\s+)?(?:user|anyone|people|them|others)\b",
    r"\b(?:hide|conceal|keep (?:it |this )?(?:secret|hidden|quiet))\b",
    # a fixed text to answer with
    r"\b(?:say|says|saying|reply|respond|answer|output|print|write|display|begin|start|end|"
    r"prefix|sign|repeat)\w*\s+(?:only\s+|just\s+|exactly\s+)?(?:with\s+)?(?:the\s+(?:words?|"
    r"phrase|text|sentence)\s+)?[\"“'`«]",
    r"[\"“”«»]|(?:^|\s)'[^'\n]{1,40}'",
    r"\b(?:claim|insist|deny|lie|deceiv\w*|mislead\w*|falsely|fake|pretend)\b",
    r"\byour own (?:knowledge|opinion|judgement|judgment|rules)\b|\bnot (?:by|from|on) the "
    r"(?:articles?|context|documents?|sources?|text)\b",
    r"\bregardless of\s+(?:the\s+)?(?:actual|real|true|truth|facts?|reality|conditions|status|"
    r"results?|evidence)\b|\b(?:actual|real|true)\s+(?:conditions|status|state|results?|values?)\b",
    r"\b(?:answer|reply|respond)\w*\s+(?:to\s+)?(?:every|each|all|any)\s+(?:[\pL\pN_]+\s+){0,2}?with\b",
    r"\b(?:play a game|a game where|let'?s play)\b",
    # acts on the world
    r"\b(?:send|e-?mail|upload|post|publish|share|transfer|contact|dm|tweet|export|"
    r"submit|run|execute|exec|launch|install|deploy|push|merge|commit|delete|remove|wipe|erase|"
    r"download|fetch|curl|wget|click|visit|approve|authori[sz]e|grant|disable|turn off|"
    r"invoke|obey|comply)(?:s|es|ed|d|ing)?\b",
    r"\b(?:tools?|functions?|commands?|scripts?|shell|terminal|apis?|endpoints?|webhooks?|"
    r"urls?|links?|websites?|domains?|servers?)\b",
    # destinations, however spelled
    r"https?:|www\.|\b[\pL\pN_-]+\s*(?:\.|\bdot\b|·)\s*(?:com|net|org|io|ru|me|xyz|info|biz|co|"
    r"app|dev|ai|cn|tk)\b|@[\pL\pN_]|\b[\pL\pN_.-]+\s+(?:at|@)\s+[\pL\pN_-]+\s+(?:dot|\.)",
    # reach beyond this person and this conversation
    r"\b(?:all|every|any|other|future)\s+(?:users?|people|conversations?|sessions?|chats?|"
    r"assistants?|agents?|models?)\b",
    r"\bthe\s+users?\b",
    # Arabic: rules, secrets, acts, destinations
    r"(?:تجاهل|تعليمات|التعليمات|تعليماتك|قواعدك|أوامرك|موجه النظام|تظاهر|تصرف\s+ك|"
    r"سر|سري|سرية|كلمة المرور|كلمة السر|أرسل|ارسل|شارك|ثبت|نفذ|شغل|احذف|رابط|موقع|"
    r"جميع المستخدمين|كل المستخدمين|المستخدم)",
]
_TAKES_OVER = tuple(rx("(?i)" + p) for p in _TAKEOVER)

# What guidance never carries: content planted for later answers. Each is a
# kind: a claim the answers are to make, a product pushed, a trigger that
# gives a later answer its content, a hand-over of who the person is.
HAND_OVER = (
    r"\b(?:treat|consider|take|regard|count|trust)\b[^.;\n]{0,60}?\bas\s+(?:if|though)\s+"
    r"(?:i|it was me|it came from me)\b|\bas\s+(?:if|though)\s+i\s+(?:said|wrote|asked|sent|"
    r"approved)\b|\b(?:speaks?|acts?|decides?|signs?|answers?)\s+(?:for|on behalf of)\s+me\b|"
    r"\bon my behalf\b|\b[\pL\pN_]+(?:'s)?\s+(?:word|instructions?|requests?|messages?)\s+"
    r"(?:is|are|count|counts)\s+(?:as\s+)?(?:mine|my own)\b"
)
_PLANTS = [
    # a claim the answers are to make
    r"\b(?:mention|say|tell\s+(?:me|them|people|everyone|anyone)|claim|state|assert|stress|"
    r"point out|remind\s+(?:me|them|people))\s+(?:that|how)\b",
    r"\b(?:say|tell\s+(?:me|them|people|everyone|anyone)|claim|state)\s+(?:the|my|our|his|her|"
    r"their|its|it|this|that)\s+[\pL\pN_]+\s+(?:is|are|was|were|has|have|had|will)\b",
    # a product or a brand pushed
    r"\b(?:recommend|suggest|promote|endorse|advertise|praise|push|plug|mention|"
    r"name|include)\w*\s+(?:only\s+|always\s+)?(?:the\s+)?(?-i:\p{Lu}[\pL\pN_]+)",
    r"\b(?:the best|the only|the cheapest|the safest|better than|superior to|instead of)\s+"
    r"[\pL\pN_]*\s*(?:vpn|bank|brand|product|service|app|store|shop|provider|company|plan|tool)\b",
    # a trigger that gives a later answer its content
    r"\b(?:when|whenever|if|once)\b[^.;\n]{1,80}?[,:]?\s*(?:then\s+)?(?:always\s+|please\s+)?"
    r"(?:say|tell|claim|state|mention|insist|assert|answer that|reply that|respond that)\b",
    HAND_OVER,
]
_PLANTING = tuple(rx("(?i)" + p) for p in _PLANTS)


def sentence_at(text: str, start: int, end: int) -> str:
    """The sentence holding `text[start:end]`: from the last sentence end
    before it to the first one after it."""
    begin = 0
    for mark in _SENTENCE_END.finditer(text, 0, start):
        begin = mark.end()
    after = _SENTENCE_END.search(text, end)
    return text[begin : after.start() if after else len(text)]


def takes_over(sentence: str) -> bool:
    """Whether the sentence asks for any of what a takeover asks for."""
    return any(p.search(sentence) for p in _TAKES_OVER)


def plants(sentence: str) -> bool:
    """Whether the sentence gives later answers content: a claim to make, a
    product to push, a trigger with what to say, a hand-over of who the person
    is. Guidance sets how answers are written, never what they hold."""
    return any(p.search(sentence) for p in _PLANTING)


def own_guidance(sentence: str, written: str = "", *, style: bool) -> bool:
    """Whether a sentence the instruction rule matched (folded) is the writer's
    guidance for how they are to be answered: it names them or only sets the
    answers' style (`style`), asks for nothing a takeover asks for, and plants
    nothing, read also in its `written` form (a product's capitals)."""
    about = style or _ANCHOR.search(sentence) is not None or _ANSWERS.search(sentence) is not None
    return about and not takes_over(sentence) and not plants(sentence) and not plants(written)


def sentences(text: str) -> list[str]:
    """`text` cut at each sentence end, as `sentence_at` reads one."""
    return [piece for piece in _SENTENCE_END.split(text) if piece.strip()]


def only_sentences(text: str, folded: frozenset[str], fold: Callable[[str], str]) -> bool:
    """Whether `text` is made of nothing but the sentences whose folded form
    (`fold`) is in `folded`: a note the rules judged whole, sentence by
    sentence, as the person's guidance; the learned detector, which reads a
    whole text at once, has nothing else to read in it."""
    if not folded:
        return False
    start = 0
    for mark in [*_SENTENCE_END.finditer(text), None]:
        end = mark.start() if mark is not None else len(text)
        piece = fold(text[start:end]).strip()
        if piece and piece not in folded:
            return False
        start = mark.end() if mark is not None else len(text)
    return True
