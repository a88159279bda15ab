"""Whose words a user's turn holds: the person's own, and what they only pass
on (quoted, forwarded, pasted, given to transform, code, reported speech).

A turn that forwards Bob's email ("I moved to Berlin in June") or asks to
translate "I moved to Vienna" holds first-person sentences that are not the
person's: captured, they would become the person's facts and supersede what
the person said themselves. So capture reads only the spans this module
calls the person's own, and `--explain` says what it skipped and why.

Line by line: a code fence (and what it holds), an indented code line, a `>`
quoted line, and a forwarded-message header with everything after it are
skipped. Sentence by sentence: an introduction of someone else's text
("here is the email…", "my landlord wrote:", "Bob sent me this:", or a frame
read from the parse: "Screenshot from the group chat:", `frames`) or of text
to transform ("translate to French:", "summarise this email…?") skips the
rest of the turn; reported speech ("Bob said he…", "she told me that…") and a
hypothetical ("If I moved to Berlin…", "Imagine I lived in Paris", "لو
انتقلت…") skip their sentence; a quotation after a verb of saying skips the
quoted part. In English and Arabic. Every pattern reads one line of bounded
length.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from substrate.meaning.frames import framed
from substrate.meaning.sentences import sentence_ends
from substrate.safety import IGNORECASE, short

QUOTED = "quoted"
FORWARDED = "forwarded"
PASTED = "pasted"
TRANSFORM = "to transform"
CODE = "code"
REPORTED = "reported speech"
HYPOTHETICAL = "hypothetical"
LINE_CHARS = 2000  # what a pattern reads of one line

_FENCE = short(r"^\s*(```|~~~)", LINE_CHARS)
_INDENTED = short(r"^(    |\t)\S", LINE_CHARS)
_QUOTE_LINE = short(r"^\s*(>|&gt;|\|\s|»)", LINE_CHARS)
_FORWARDED = short(
    r"^[\s\-_*=>]{0,20}(forwarded message|begin forwarded message|original message|fwd?:|"
    r"-{1,20} ?forwarded|رسالة (محولة|معاد توجيهها|مُعاد توجيهها|مُحوّلة)|الرسالة الأصلية)"
    r"|^\s{0,8}(from|sent|to|subject|date|cc) ?: ?\S.*(@|\d{4}|\bat\b)",
    LINE_CHARS,
    IGNORECASE,
)
_TEXT = (
    r"(e-?mails?|messages?|texts?|notes?|letters?|articles?|posts?|pages?|documents?|docs?|"
    r"paragraphs?|drafts?|threads?|chats?|reviews?|comments?|replies|reply|passages?|"
    r"excerpts?|story|stories|essays?|transcripts?|bio|announcements?|updates?|newsletters?|"
    r"sentences?|words|lines?|script|lyrics|poem|tweets?|dms?|voicemail|memo|speech)"
)
_PASTED = short(
    r"\b(here is|here's|here are|below is|below are|pasting|pasted|copying|copied|"
    r"i (got|received|was sent))\b[^.!?\n]{0,60}?\b" + _TEXT + r"\b"
    r"|\b(this|the following|that) " + _TEXT + r"\b[^.!?\n]{0,60}?\b(from|by|sent|wrote|says)\b"
    r"|\b(wrote|writes|sent|sends|e-?mailed|texted|messaged|posted|shared|forwarded)\b"
    r"( (me|us|to me|to us))?( (this|the following|that|it))?( (today|yesterday|earlier))?\s*:"
    r"|(إليك|هذه|هذا|وصلتني|وصلني|أرسل لي|أرسلت لي|كتب لي|كتبت لي)\s?[^.!؟\n]{0,40}?"
    r"(رسالة|الرسالة|نص|النص|بريد|البريد|مقال|المقال|ما يلي)",
    LINE_CHARS,
    IGNORECASE,
)
# "My coworker posted this in Slack:" — a verb of saying or sending, then a
# colon that opens what follows ("Note: I moved…" is the person's own note).
_SAID_COLON = short(
    r"\b(posted|wrote|writes|sent|shared|said|says|texted|e-?mailed|messaged|forwarded|"
    r"published|announced|commented|replied|tweeted)"
    r"\b[^:\n]{0,60}:",
    LINE_CHARS,
    IGNORECASE,
)
_TRANSFORM = short(
    r"\b(translate|summari[sz]e|sum up|tl;?dr|proof-?read|re-?write|paraphrase|reword|rephrase|"
    r"reply to|respond to|write back to|draft (?:a |my )?(?:reply|response|answer) to|answer|"
    r"tidy (?:this |it |the following )?up|clean (?:this |it |the following )?up|improve|"
    r"check (?:the )?(?:grammar|spelling|wording)|spell-?check|critique|review|"
    r"(?:put|turn|convert|format) (?:this|it|the following) (?:into|as|in)|"
    r"edit|polish|shorten|simplify|condense|fix (the )?(grammar|spelling|typos)|"
    r"correct (the )?(grammar|spelling)|make (this|it|the following) [a-z ]{0,20}"
    r"(formal|casual|shorter|longer|better|friendlier|polite|professional))\b"
    r"(?P<rest>[^.!?\n]{0,80})"
    r"|(ترجم|لخص|لخّص|صحح|صحّح|دقق|أعد صياغة|اعد صياغة|أعد كتابة)(?P<rest_ar>[^.!؟\n]{0,80})",
    LINE_CHARS,
    IGNORECASE,
)
_THIS = short(
    r"\b(this|these|that|the following|following|below|it|text|message|email|paragraph)\b|"
    r"(هذا|هذه|التالي|الآتي|النص|الرسالة)",
    LINE_CHARS,
    IGNORECASE,
)
_REPORTED = short(
    r"^(according to|as (my [a-z]+|he|she|they|[A-Z][a-z]+) (said|says|put it)|"
    r"(my [a-z]+|[A-Z][a-z]+|he|she|they) (keeps|kept) (saying|telling|insisting))\b|"
    r"^(my [a-z]+( [a-z]+)?|(?!(?:who|what|which|when|where|why|how|did|does|has|is|was)\b)"
    r"[A-Z][a-z]+( [A-Z][a-z]+)?|he|she|they|his [a-z]+|her [a-z]+|"
    r"the [a-z]+|our [a-z]+)"
    r" (said|says|told me|tells me|told us|mentioned|claims|claimed|wrote|writes|texted|"
    r"emailed|announced|explained|insisted|replied|answered|added)\b"
    r"|^(قال|قالت|يقول|تقول|أخبرني|أخبرتني|ذكر|ذكرت|كتب|كتبت)\b",
    LINE_CHARS,
    IGNORECASE,
)
# A sentence about what is not so: a condition, a supposition, a thought experiment.
_HYPOTHETICAL = short(
    r"^[\s\"“'(]*(?:(?:and|but|so|ok|okay|well),? )?(?:if|suppose|supposing|imagine|what if|"
    r"pretend|let's say|lets say|say|hypothetically|assuming|in theory|in a world where|"
    r"in an alternate|were i to|had i|should i ever)\b"
    r"|^[\s\"“(]*(?:و)?(?:لو|إذا|اذا|إن|تخيل|تخيّل|تخيلي|افترض|لنفترض|فرضا|فرضاً|لنقل)(?:\s|$)",
    LINE_CHARS,
    IGNORECASE,
)
_SAYING_QUOTE = short(
    r"\b(said|says|saying|wrote|writes|told me|asked|replied|texted|posted|joked|jokes|"
    r"swears by|swore|reckons|insists|messaged|whatsapped)\b[,:]?\s*"
    r"[\"“«‘']|(قال|قالت|كتب|كتبت|أرسل|ارسل|أرسلت|ارسلت|بعتتلي|بعتلي)"
    r"(?: [^\s:'\"“«‘]{1,20})?(?: [^\s:'\"“«‘]{1,20})?"  # "كتبت لي زميلتي:"
    r"\s*:?\s*[\"“«‘']",
    LINE_CHARS,
    IGNORECASE,
)
# A request to the assistant: what it quotes next is text to work on.
_ASKS = short(
    r"^(?:(?:hi|hey|ok|okay|so)[,!]? )?(?:can|could|would|will) (?:you|u)\b"
    r"|^(?:please|pls|help me|i need you to)\b|^(?:هل )?(?:ممكن|يمكنك|ساعدني|ساعديني)",
    LINE_CHARS,
    IGNORECASE,
)


@dataclass(frozen=True)
class Span:
    """A part of the turn: where it starts, its text, and, when skipped, why."""

    offset: int
    text: str
    why: str | None = None


def voices(turn: str) -> list[Span]:
    """The turn in order, cut into the person's own spans (`why` None) and the
    skipped ones (`why` says what they are)."""
    out: list[Span] = []
    in_code = False
    at = 0
    lines = turn.split("\n")
    for number, line in enumerate(lines):
        start, at = at, at + len(line) + 1
        head = line[:LINE_CHARS]
        if _FENCE.match(head):
            in_code = not in_code
            out.append(Span(start, line, CODE))
            continue
        if in_code or _INDENTED.match(head):
            out.append(Span(start, line, CODE))
            continue
        if _QUOTE_LINE.match(head):
            out.append(Span(start, line, QUOTED))
            continue
        if _FORWARDED.search(head):
            out.append(Span(start, "\n".join(lines[number:]), FORWARDED))
            return _merged(out)
        spans, rest = _sentences(line, start)
        out += spans
        if rest is not None:
            tail = "\n".join([rest.text, *lines[number + 1 :]])
            out.append(Span(rest.offset, tail, rest.why))
            return _merged(out)
    return _merged(out)


def own_words(turn: str) -> list[Span]:
    """The person's own spans of the turn."""
    return [s for s in voices(turn) if s.why is None and s.text.strip()]


def _sentences(line: str, start: int) -> tuple[list[Span], Span | None]:
    """A line's sentences judged one by one; the span from an introduction of
    someone else's text (or of text to transform) to the line's end, if any."""
    out: list[Span] = []
    cut = 0
    asked = False
    for end in [*sentence_ends(line), len(line)]:
        sentence = line[cut:end]
        if not sentence.strip():
            cut = end
            continue
        at = start + cut
        head = sentence[:LINE_CHARS]
        if asked and _opens_quote(head):  # "can you fill out this form for my son? 'Conditions: …'"
            return out, Span(at, line[cut:], TRANSFORM)
        asked = head.rstrip().endswith(("?", "؟")) and _ASKS.search(head.strip()) is not None
        intro = _introduced(head)
        if intro is not None:
            why, after = intro
            out.append(Span(at, sentence[:after]))
            quoted = _quotation_then_own(line, cut + after)
            if quoted is not None:  # "كتبت لي زميلتي: '…' — أما أنا فقد انتقلت…"
                out.append(Span(at + after, line[cut + after : quoted], why))
                more, rest = _sentences(line[quoted:], start + quoted)
                return out + more, rest
            return out, Span(at + after, line[cut + after :], why)
        if _REPORTED.match(head.strip()) and not _quote_then_own(head):
            out.append(Span(at, sentence, REPORTED))
        elif _HYPOTHETICAL.match(head):
            out.append(Span(at, sentence, HYPOTHETICAL))
        else:
            out += _without_quotes(sentence, at)
        cut = end
    return out, None


def _quotation_then_own(line: str, at: int) -> int | None:
    """Where the person's own words resume when what a colon introduces is one
    quotation followed by more than a few words of their own; else None."""
    start = at + len(line[at:]) - len(line[at:].lstrip())
    close = closing(line, start) if start < len(line) else -1
    if close < 0 or len(line[close + 1 :].split()) <= _OWN_AFTER:
        return None
    return close + 1


def _opens_quote(sentence: str) -> bool:
    head = sentence.lstrip()
    return bool(head) and head[0] in _PAIRS and head[0] != "`"


def _introduced(sentence: str) -> tuple[str, int] | None:
    """(why, where the introduced text starts in the sentence) when the sentence
    introduces someone else's text or text to transform ("rewrite my resume"
    without a colon introduces nothing: what follows is the person's)."""
    handed = framed(sentence)  # "Screenshot from the group chat: …", read from the parse
    if handed is not None:
        return PASTED, handed
    pasted = _PASTED.search(sentence) or _SAID_COLON.search(sentence)
    if pasted is not None:
        return PASTED, _after(sentence, pasted.start(), pasted.end())
    transform = _TRANSFORM.search(sentence)
    if transform is not None:
        rest = transform.group("rest") or transform.group("rest_ar") or ""
        colon = sentence.find(":", transform.start())
        asked = transform.group(0)[: len(transform.group(0)) - len(rest)]
        if colon >= 0 or _THIS.search(rest) or _THIS.search(asked):  # "make this friendlier?"
            return TRANSFORM, _after(sentence, transform.start(), transform.end())
    return None


def _after(sentence: str, start: int, end: int) -> int:
    """Where the introduced text begins: after the introduction's colon, else
    after the introducing sentence."""
    colon = sentence.find(":", start)
    if 0 <= colon <= end + 40:
        return colon + 1
    return len(sentence)


def _without_quotes(sentence: str, at: int) -> list[Span]:
    """The sentence with the quotation after a verb of saying cut out, then any
    other quotation of `QUOTED_WORDS` words or more, and inline code."""
    said = _SAYING_QUOTE.search(sentence[:LINE_CHARS])
    if said is None:
        return _marked_spans(sentence, at)
    close = closing(sentence, said.end() - 1)
    end = len(sentence) if close < 0 else close + 1
    parts = [
        Span(at, sentence[: said.end() - 1]),
        Span(at + said.end() - 1, sentence[said.end() - 1 : end], QUOTED),
    ]
    if end < len(sentence):
        parts.append(Span(at + end, sentence[end:]))
    return parts


QUOTED_WORDS = 4  # a quotation this long is someone's words, not a phrase
_PAIRS = {
    "`": ("`", CODE), '"': ('"', QUOTED), "“": ("”", QUOTED), "«": ("»", QUOTED),
    "‘": ("’", QUOTED), "'": ("'", QUOTED),
}  # fmt: skip
_SINGLE = ("'", "‘", "’")
_AFTER_CLOSE = frozenset(' .,;:!?)]—–-…"“”')


def closing(sentence: str, i: int) -> int:
    """Where the quotation opened at `i` closes, or -1. A single quote opens
    only before a word and after a space or the start ("'we're in Swindon'"),
    and closes only after a word and before a space, a punctuation mark or the
    end: the apostrophes of "we're" and "Sam's" are neither."""
    mark = sentence[i]
    if mark not in _PAIRS:
        return -1
    if mark not in _SINGLE:
        return sentence.find(_PAIRS[mark][0], i + 1)
    if not _opens(sentence, i):
        return -1
    return _single_closers(sentence).get(i, -1)


@lru_cache(maxsize=64)
def _single_closers(sentence: str) -> dict[int, int]:
    """Each single quote's nearest closing quote after it, in one pass from the
    end (a sentence of many apostrophes costs one read, not one per mark)."""
    out: dict[int, int] = {}
    nearest = -1
    for j in range(len(sentence) - 1, -1, -1):
        if sentence[j] in _SINGLE:
            out[j] = nearest
            if j > 0 and _closes(sentence, j):
                nearest = j
    return out


def _opens(sentence: str, i: int) -> bool:
    before = sentence[i - 1] if i > 0 else " "
    after = sentence[i + 1] if i + 1 < len(sentence) else " "
    return (before.isspace() or before in '([:—–-"“') and not after.isspace()


def _closes(sentence: str, j: int) -> bool:
    before = sentence[j - 1]
    after = sentence[j + 1] if j + 1 < len(sentence) else " "
    return not before.isspace() and (after in _AFTER_CLOSE or after.isspace())


def _quote_then_own(sentence: str) -> bool:
    """Reported speech that quotes its words, then goes on in the person's own
    ("Tom texted 'we're in Swindon' — funny timing, we moved on Saturday"):
    the quotation is cut out, not the whole sentence."""
    said = _SAYING_QUOTE.search(sentence[:LINE_CHARS])
    if said is None:
        return False
    close = closing(sentence, said.end() - 1)
    return close >= 0 and len(sentence[close + 1 :].split()) > _OWN_AFTER


_OWN_AFTER = 2  # words after a quotation that are more than "— so jealous"


def _marked_spans(sentence: str, at: int) -> list[Span]:
    """Inline code (`…`) and quoted text of `QUOTED_WORDS` words or more (or any
    quotation a colon opens: "for my son: 'Medication: Clenil'") cut out of the
    sentence; one pass, each mark looked for once from where the last span
    ended."""
    out: list[Span] = []
    cut = i = 0
    while i < len(sentence):
        pair = _PAIRS.get(sentence[i])
        if pair is None:
            i += 1
            continue
        close = closing(sentence, i)
        if close < 0:
            if sentence[i] in _SINGLE:
                i += 1
                continue
            break
        inner = sentence[i + 1 : close]
        if pair[1] == CODE or _speech(inner) or _colon_before(sentence, i):
            out += [Span(at + cut, sentence[cut:i]), Span(at + i, sentence[i : close + 1], pair[1])]
            cut = close + 1
        i = close + 1
    out.append(Span(at + cut, sentence[cut:]))
    return [span for span in out if span.text]


def _colon_before(sentence: str, i: int) -> bool:
    return sentence[:i].rstrip().endswith((":", "："))


_VOICE = frozenset("i i'm i've i'd i'll my me we we're our you your he she they".split())


def _speech(inner: str) -> bool:
    """Quoted words that are someone's sentence, not a title ("Here Comes the
    Sun"): long enough, and said by someone or ending as a sentence does."""
    words = inner.split()
    return len(words) >= QUOTED_WORDS and (
        inner.rstrip().endswith((".", "!", "?"))
        or any(w.lower().strip(",.!?") in _VOICE for w in words)
    )


def _merged(spans: list[Span]) -> list[Span]:
    """Neighbours of the same kind joined, so the person's own text keeps its
    sentences together for the extractor."""
    out: list[Span] = []
    for span in spans:
        if (
            out
            and out[-1].why == span.why
            and out[-1].offset + len(out[-1].text) + 1 >= span.offset
        ):
            gap = span.offset - out[-1].offset - len(out[-1].text)
            out[-1] = Span(out[-1].offset, out[-1].text + "\n" * max(gap, 0) + span.text, span.why)
        else:
            out.append(span)
    return out
