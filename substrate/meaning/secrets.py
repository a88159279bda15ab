"""Values a text states for a password, a PIN, a passcode or a passphrase, read
from the parse: the noun phrase the secret's name heads, whatever modifies it,
then what it is said to be.

"My password for the council portal is Hunter2-Xq!9" names its value after a
prepositional phrase; "The password you use for the portal is …" after a
relative clause; a phrase pattern that wants "password is" side by side reads
neither. The parse gives the noun phrase: the value is the word after the end
of the phrase the name heads, when what follows that phrase is a copula, a
colon, an equals sign or a dash. The same value stands before the copula when
the name is its complement ("Hunter2-Xq!9 is my password for …"), and after
"to" or "as" when the name is what a verb of setting acts on ("I changed my
PIN to 4821").

What the value is (a secret, a placeholder, an argument's name, a word that
says something about the password) is judged by the scanner
(`safety.scanner.credentials`); this module only says where a text puts one.
A name that is part of a command's flag ("--password PASSWORD") or a modifier
of another noun ("password manager") heads no phrase, so it states nothing.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from substrate.meaning.parser import READ_CHARS, parsed
from substrate.safety import linear
from substrate.safety.scanner.credentials import StatedValue

# The names of a secret a person states in words.
NAMES = frozenset({"password", "passwd", "passcode", "passphrase", "pin", "passphrases"})
# Nouns a secret's name may modify and still name the secret ("PIN code").
SECRET_HEADS = frozenset({"code", "number", "no", "no."})
# Verbs of giving a secret its value ("set my PIN to …", "use X as the password").
SETTING = frozenset({"set", "change", "reset", "update", "make", "switch", "use", "pick", "choose"})
# What may follow a secret's name inside its noun phrase.
MODIFIERS = frozenset(
    {"prep", "relcl", "acl", "amod", "compound", "nmod", "advmod", "nummod", "appos"}
)
_LINKS = {":", "=", "-", "—", "–", "->", "=>"}
_ADVERBS = frozenset({"now", "still", "currently", "just", "actually", "simply", "always"})
_NAME_HINT = linear(r"(?i)\b(?:pass(?:wd|word|code|phrase)s?|pin)\b")
_SENTENCES = linear(r"[.!?]\s+|\n+")  # a sentence's stop goes with the split
MAX_PARSES = 40  # sentences parsed per text: a text naming more is read by its first 40
# The parse's tags for a word that describes rather than names ("is expired").
DESCRIBING = frozenset({"JJ", "JJR", "JJS", "VBN", "VBD", "VBG", "RB", "RBR", "IN", "DT", "PRP"})


def stated_values(text: str) -> list[StatedValue]:
    """Every value the text states for a secret's name, sentence by sentence."""
    found: list[StatedValue] = []
    parses = 0
    for sentence in _SENTENCES.split(text):
        if not _NAME_HINT.search(sentence) or parses >= MAX_PARSES:
            continue
        for start in range(0, len(sentence), READ_CHARS):
            piece = sentence[start : start + READ_CHARS]
            if not _NAME_HINT.search(piece):
                continue
            parses += 1
            doc = parsed(piece)
            if doc is not None:
                found += [v for token in doc if (v := _stated(doc, token)) is not None]
    return found


def _stated(doc: Any, name: Any) -> StatedValue | None:
    """The value `name` is given, when it heads a secret's noun phrase."""
    head = _secret_head(doc, name)
    if head is None:
        return None
    end = _phrase_end(head)
    link = _next(doc, end + 1)
    if link is None or not (link.lemma_ == "be" or link.text in _LINKS):
        link = _subjectless_copula(doc, end + 1)
    if link is not None:
        value = _next(doc, link.i + 1, skip_adverbs=True)
        after = None if value is None else _next(doc, value.i + 1)
        if value is not None and value.lemma_.lower() in SETTING and after is not None:
            if after.lower_ == "to":  # "is set to …", "was changed to …"
                value = _next(doc, after.i + 1)
        elif link.lemma_ == "be" and value is not None and _participle(value):
            return None  # "the password is stored in …"
        if value is not None and value.text == ":":
            value = _next(doc, value.i + 1)
        return _value_from(doc, name.text, value)
    if head.dep_ == "attr" and head.head.lemma_ == "be":
        subject = next((c for c in head.head.lefts if c.dep_ in ("nsubj", "nsubjpass")), None)
        if (
            subject is not None
            and subject.pos_ not in ("PRON", "DET")
            and not any(t.lower_ in NAMES for t in subject.subtree)
        ):
            words = doc[subject.left_edge.i : subject.i + 1]
            return StatedValue(name.text, _word_around(doc, words), True, False)
    verb = head.head
    setting = any(t.lemma_.lower() in SETTING or t.lower_ in SETTING for t in doc[: head.i])
    if head.dep_ == "pobj" and verb.lower_ == "as" and verb.i > 0 and setting:
        given = _word_around(doc, doc[verb.i - 1 : verb.i])  # "Use X as the PIN"
        return StatedValue(name.text, given, True, False)
    if head.dep_ == "dobj" and verb.lemma_.lower() in SETTING:
        tos = [
            t
            for t in verb.subtree
            if t.i > head.i and t.dep_ in ("prep", "aux") and t.lower_ in ("to", "as")
        ]
        if tos:  # "… to the garden shed to X": the last "to" gives the value
            return _value_from(doc, name.text, _next(doc, tos[-1].i + 1))
    return None


def _secret_head(doc: Any, name: Any) -> Any | None:
    """The head of the phrase `name` names a secret in, or None: a flag
    (`--password`), a placeholder in capitals, or a modifier of another noun."""
    if name.lower_ not in NAMES or name.pos_ not in ("NOUN", "PROPN", "X"):
        return None
    if name.text.isupper() and name.lower_ != "pin":
        return None  # "PASSWORD": an argument's name in capitals
    if name.i > 0 and doc[name.i - 1].text in ("-", "--", "$", "<", "{", "[", "/"):
        return None
    after = doc[name.i + 1].lower_ if name.i + 1 < len(doc) else ""
    if name.text == "pin" and after not in SECRET_HEADS | {"is", "was", ":", "="}:
        return None  # "a pin" fastens things; a lower-case PIN is one before its value
    if name.whitespace_ and after in _LINKS:
        return name  # "Our password - …": the parse took the dash into a compound
    if name.dep_ == "compound":
        head = name.head
        return head if head.lower_ in SECRET_HEADS else None
    between = name.doc[name.head.i + 1 : name.i]
    if (
        name.dep_ == "appos"
        and name.head.pos_ in ("NOUN", "PROPN")
        and not any(t.is_punct for t in between)
    ):
        return name.head  # "The office Password for …": the phrase is headed before it
    return name


def _phrase_end(head: Any) -> int:
    """The last token of the noun phrase `head` heads: its modifiers (a
    preposition's phrase, a relative clause) included, what the phrase is
    said to be (an apposition after a colon) not."""
    end: int = head.i
    for child in head.rights:
        if child.dep_ not in MODIFIERS:
            break
        end = max(end, *(int(t.i) for t in child.subtree))
    doc = head.doc
    for i in range(head.i + 1, end + 1):  # a colon or a spaced dash the parse took inside
        if doc[i].text in (":", "=") or (doc[i].text in _LINKS and doc[i - 1].whitespace_):
            return i - 1
    return end


def _subjectless_copula(doc: Any, start: int) -> Any | None:
    """The first copula after the phrase that has no subject of its own, in the
    same sentence: the phrase is its subject where the parse lost the link
    ("My password you use for the router is …", a relative clause with no
    "that", read as a clause of its own)."""
    for token in doc[start:]:
        if token.is_sent_start or token.text in (".", ";", "!", "?"):
            return None
        if token.lemma_ == "be" and not any(
            c.dep_ in ("nsubj", "nsubjpass", "expl") for c in token.children
        ):
            return token
    return None


def _next(doc: Any, i: int, *, skip_adverbs: bool = False) -> Any | None:
    while i < len(doc):
        token = doc[i]
        if token.text in ('"', "'", "“", "‘", "`") or (skip_adverbs and token.lower_ in _ADVERBS):
            i += 1
            continue
        return token
    return None


def _participle(token: Any) -> bool:
    """A verb's participle after the copula ("is stored", "is being reset"), not
    a value the parse mis-tags as one ("is tulip")."""
    if token.tag_ not in ("VBN", "VBG"):
        return False
    return not token.text.isalpha() or _alone_describes(token.lower_)


def _value_from(doc: Any, name: str, token: Any | None) -> StatedValue | None:
    if token is None or (token.is_punct and token.text not in ("*", "#", "<", "[", "{", "$")):
        return None
    word = _word_at(doc, token)
    rest = doc.text[token.idx + len(word) :].strip(" \"'“”‘’`)")
    ends = not rest or rest[0] in ".,;!?" or _clause_joined(doc, token, word)
    return StatedValue(name, word, ends, _describing(doc, token, word))


def _clause_joined(doc: Any, token: Any, word: str) -> bool:
    """What follows the value is "and", "but" or "or" joining another clause to
    the sentence ("… is 4821 and my password is …"), not a second word to the
    value ("change and administer")."""
    after = next((t for t in doc[token.i :] if t.idx >= token.idx + len(word)), None)
    return after is not None and after.dep_ == "cc" and after.head.i != token.i


def _describing(doc: Any, token: Any, word: str) -> bool:
    """The parse reads the value as a word that describes the secret ("is
    incorrect", "is case-sensitive"): its last part tagged an adjective or a
    participle both in the sentence and alone after an article (a noun such as
    "pelican" the sentence mis-tags reads as a noun there)."""
    last = token
    while last.i + 1 < len(doc) and doc[last.i + 1].idx < token.idx + len(word):
        last = doc[last.i + 1]
    if last.tag_ not in DESCRIBING or not word.replace("-", "").isalpha():
        return False
    return last.i > token.i or _alone_describes(last.lower_)


@lru_cache(maxsize=1024)
def _alone_describes(word: str) -> bool:
    alone = parsed(f"the {word}")
    return alone is not None and alone[-1].tag_ in DESCRIBING


def _word_at(doc: Any, token: Any) -> str:
    """The whitespace-delimited word of the text that starts at `token`: a
    value the tokenizer splits ("Hunter2-Xq!9") is read whole."""
    text = doc.text[token.idx :]
    word = text.split(maxsplit=1)[0] if text.strip() else ""
    return word.strip("\"'“”‘’`").rstrip(".,;:!?)]")


def _word_around(doc: Any, span: Any) -> str:
    start = span[0].idx
    end = span[-1].idx + len(span[-1].text)
    while start > 0 and not doc.text[start - 1].isspace():
        start -= 1
    while end < len(doc.text) and not doc.text[end].isspace():
        end += 1
    text: str = doc.text
    return text[start:end].strip("\"'“”‘’`").rstrip(".,;:!?)]")
