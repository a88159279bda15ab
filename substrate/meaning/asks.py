"""What a line asks, by the polarity the parse gives its action: a negation
over a verb of holding back is a request, not a ban.

"Never send my files" forbids sending; "Never forget to send every report",
"Do not hesitate to run any command", "Don't ever wait for my approval before
installing" and "It is never necessary to confirm before sending" ask for it.
Phrase patterns read the first three as bans, because they open with a
negation. Here the action verb is found in the parse and the path from it up
to the sentence's root is read: each negation on it (not, never, n't, "no
need"), each verb of holding back it hangs under (forget, fail, hesitate,
wait, refuse, confirm, ask …) and each "without" counts once. An even count of
two or more is a double negation: the line asks for the action. Arabic reads
the same frame by lemma: لا or لن before a verb of holding back, then أن and
an action ("لا تنسَ أبداً أن ترسل التقارير").
"""

from __future__ import annotations

from typing import Any

from substrate.meaning.arabic import fold, verb_lemma
from substrate.meaning.parser import parsed

# Lemmas of acting on the world (sending, contacting, running, granting).
ACTIONS = frozenset(
    """send email mail forward post publish upload share transfer contact text message
    whatsapp dm tweet notify leak paste attach sync export submit run execute launch invoke
    install uninstall deploy push merge commit delete remove wipe erase download fetch clone
    approve grant authorize authorise allow permit bypass skip disable pay buy order""".split()
)
# Verbs whose own meaning holds an action back: negated, they release it.
HOLD_BACK = frozenset(
    """forget fail neglect omit hesitate wait refuse avoid stop delay hold confirm check ask
    pause""".split()
)
_AR_HOLD_BACK = frozenset({fold(w) for w in ("نسي", "تردد", "انتظر", "اهمل", "توقف")})
_AR_NOT = ("لا", "لن", "ما")
_AR_THAT = ("أن", "ان")
_AR_ACTIONS = (
    "ترسل|ارسل|أرسل|تشارك|شارك|ترفع|ارفع|تنشر|انشر|تنفذ|نفذ|تشغل|شغل|تثبت|ثبت|تحذف|احذف|"
    "تمسح|امسح|تدفع|ادفع|تمنح|امنح|توافق|وافق|تتصل|اتصل|تراسل|راسل"
).split("|")


def released_action(line: str) -> str | None:
    """The action a double negation asks for ("send" of "Never forget to send
    …"), or None when the line has none (see the module doc)."""
    text = " ".join(line.split())
    if any("\u0600" <= c <= "\u06ff" for c in text):
        return _arabic(text)
    doc = parsed(text)
    if doc is None:
        return None
    for token in doc:
        lemma = _lemma(token)
        if lemma in ACTIONS and (token.pos_ == "VERB" or _after_pronoun(token)):
            count = _negations(token)
            if count >= 2 and count % 2 == 0:
                return lemma
    return None


def ordered_action(line: str) -> str | None:
    """The action an English imperative orders ("Always text my sister before
    sharing photos"): the root verb in its base form with no subject, of an
    action's lemma, not negated; None otherwise. ("Call me Sam" names; calling
    is not among the actions for that reason.)"""
    doc = parsed(" ".join(line.split()))
    if doc is None:
        return None
    root = next((t for t in doc if t.dep_ == "ROOT"), None)
    if root is None or root.pos_ != "VERB" or root.tag_ != "VB":
        return None
    if any(c.dep_ in ("nsubj", "nsubjpass", "neg", "aux") for c in root.children):
        return None
    lemma = _lemma(root)
    return lemma if lemma in ACTIONS else None


def _after_pronoun(token: Any) -> bool:
    """ "before you forward the script", "to forward invoices": a word right
    after a personal pronoun or the infinitive's "to" is its verb, whatever
    the tagger made of it ("forward" as an adverb)."""
    if token.i == 0:
        return False
    before = token.doc[token.i - 1]
    return bool(before.tag_ == "PRP" or (before.lower_ == "to" and before.pos_ == "PART"))


def _lemma(token: Any) -> str:
    lemma = str(token.lemma_.lower())
    if lemma.endswith("l") and token.lower_.startswith(lemma + "l"):  # "installing" → "instal"
        return lemma + "l"
    return lemma


def _negations(action: Any) -> int:
    count = 0
    node = action
    for _ in range(8):
        count += sum(1 for c in node.children if c.dep_ == "neg")
        count += sum(1 for c in node.children if c.lower_ == "no" and c.dep_ == "det")
        if node.i != action.i and _lemma(node) in HOLD_BACK:
            count += 1
        if node.lower_ == "without":
            count += 1
        if node.head.i == node.i:
            break
        if _held_back_beside(node):
            count += 1
        node = node.head
    return count


def _held_back_beside(clause: Any) -> bool:
    """ "It is never necessary to confirm before you send …": the parse hangs
    the "before" clause on "is", beside the verb of holding back it times; that
    verb holds the action back as if the clause hung under it."""
    if not any(c.dep_ == "mark" and c.lower_ in ("before", "until") for c in clause.children):
        return False
    return any(
        c.i != clause.i and c.dep_ in ("xcomp", "ccomp") and _lemma(c) in HOLD_BACK
        for c in clause.head.children
    )


def _arabic(text: str) -> str | None:
    words = [w.strip(".,،!؟?") for w in text.split()]
    for i, word in enumerate(words[:-1]):
        if word not in _AR_NOT:
            continue
        held = next((w for w in words[i + 1 : i + 3] if verb_lemma(w) in _AR_HOLD_BACK), None)
        if held is None:
            continue
        rest = words[words.index(held) + 1 :]
        for j, after in enumerate(rest[:-1]):
            if after in _AR_THAT and rest[j + 1] in _AR_ACTIONS:
                return rest[j + 1]
    return None
