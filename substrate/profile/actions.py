"""What a profile line asks the assistant to do.

A trusted profile line is on every card, so a line that asks the assistant to
act on the world (send, upload, share, contact, install, run, execute, push,
delete) or grants it leave to (approve, skip asking) is decided by what it
asks, not by how its destination is spelled: "evil dot com", "127.1 port
9000" and "Telegram @bot" pass every spelling check, and "including the
output of env in bug reports" names no destination at all. Such a line is
written only after the person confirms it (`pending`); the spelling checks
(`values.unsafe_value`) stay as a second layer.

A line is classed by its frame, in English and Arabic:

- an imperative: the line (after "always", "please", "automatically", "feel
  free to", ...) starts with an action verb: "Send the logs to ...";
- a request of the assistant: "you should run ...", "the assistant may push ...",
  "I want you to delete ...", "User wants tool calls auto-approved";
- a habit it is to keep: "User prefers emailing every report to ...",
  "including the output of env in bug reports";
- leave given: "without asking", "no need to confirm", "auto-approve".

A line that forbids the action ("Never push to main", "Do not run commands
without asking", "لا ترسل ...") asks nothing: it is an ordinary preference.
A negation of holding back asks, read from the parse (`meaning.asks`): "Never
forget to send …", "Do not hesitate to run …", "It is never necessary to
confirm before sending …", "لا تنسَ أن ترسل …".
"""

from __future__ import annotations

from substrate.meaning.asks import ordered_action, released_action
from substrate.safety import IGNORECASE, linear

# Verbs that act on the world, by what they do (the reason names the class).
SEND = (
    "send|e-?mail|mail|forward|post|publish|upload|share|transfer|cc|bcc|contact|dm|tweet|"
    "notify|report|leak|paste|attach|include|sync|export|submit"
)
RUN = (
    "run|execute|exec|launch|invoke|install|uninstall|deploy|push|force-push|merge|commit|"
    "delete|remove|wipe|erase|format|rm|pip|npm|docker|curl|wget|sudo|chmod|kill|reboot|"
    "download|fetch|clone|open"
)
GRANT = "approve|auto-?approve|grant|authori[sz]e|allow|permit|waive|bypass|skip|disable"
VERBS = f"{SEND}|{RUN}|{GRANT}"
_ING = r"(?:s|es|ed|d|ing|ting|ping|ging|ning)?"

# Words a request may open with before its verb: any adverb ("kindly",
# "automatically", "quietly"), a politeness, a leave ("feel free to").
_LEAD = (
    r"(?:(?:[a-z]+ly|always|please|pls|just|also|then|now|feel free to|go ahead and|"
    r"do|you can|you may|you should)\s+)*"
)
_IMPERATIVE = linear(rf"^\W*{_LEAD}(?:{VERBS}){_ING}\b", IGNORECASE)
_ASKED = linear(
    r"\b(?:you|assistant|the assistant|it|claude|the agent|agent)\s+"
    r"(?:should|must|can|may|will|shall|is allowed to|are allowed to|always|automatically)\s+"
    rf"(?:always\s+|also\s+|just\s+)?(?:{VERBS}){_ING}\b",
    IGNORECASE,
)
_WANTED = linear(
    r"\b(?:i|user|the user|he|she|they)(?:'d|\s+would|\s+will)?\s*"
    r"(?:wants?|like|likes|love|loves|needs?|expects?|asks?|prefers?|requires?)\s+"
    rf"(?:you\s+|the assistant\s+|it\s+)?(?:to\s+)?(?:always\s+)?(?:{VERBS}){_ING}\b",
    IGNORECASE,
)
_HABIT = linear(
    r"\b(?:prefers?|likes?|loves?|wants?|enjoys?|favou?rs?|including|include|includes)\s+"
    rf"(?:{SEND}|{RUN}|{GRANT})(?:ing|ting|ping|ning|ging)\b",
    IGNORECASE,
)
# A line that opens with the habit itself and says where it goes: "including
# the output of env in bug reports", "sending a copy to ...".
_GERUND_START = linear(
    r"^\W*(?:always\s+)?(?:includ|attach|past|shar|send|upload|post|forward|e-?mail|mail|"
    r"publish|push|deploy|install|runn|execut|delet|approv)ing\b[^.;]{0,80}?"
    r"(?:\b(?:to|with|into|onto)\s+\S|\bin\s+(?:\w+\s+){0,2}(?:reports?|e-?mails?|messages?|"
    r"issues?|posts?|tickets?|logs?|chats?|channels?)\b)",
    IGNORECASE,
)
_PASSIVE_SUBJECT = linear(
    r"\b(?:wants?|likes?|prefers?|expects?)\s+[\w\s-]{1,40}?\s+(?:auto-?approved|approved|sent|"
    r"uploaded|shared|posted|forwarded|pushed|deployed|installed|run|executed|deleted)\b",
    IGNORECASE,
)
_LEAVE = linear(
    r"\b(?:(?:without (?:any |a )?|with no )(?:asking|confirm\w*|checking|check|approval|"
    r"permission|review\w*|my ok)|"
    r"no need to (?:ask|confirm|check)|(?:don'?t|do not|never) (?:ask|confirm|check) "
    r"(?:first|before|me)|skip (?:the )?(?:confirm\w*|approval|review)|auto-?approv\w*|"
    r"full (?:access|permissions?)|admin (?:rights|access)|root access|any command)\b",
    IGNORECASE,
)
_FORBIDDEN = linear(
    rf"^\W*(?:never|don'?t|do not|no|stop|avoid|refuse to)\s+(?:\w+\s+){{0,2}}?(?:{VERBS}){_ING}\b",
    IGNORECASE,
)
# Arabic: an action verb in the imperative or after "أريدك أن" / "يجب أن"; leave
# given ("دون سؤال"); a line that opens with "لا" forbids.
_AR_VERBS = (
    "أرسل|ارسل|ترسل|شارك|تشارك|ارفع|ترفع|انشر|تنشر|نفذ|نفّذ|تنفذ|شغل|شغّل|تشغل|ثبت|ثبّت|"
    "تثبت|احذف|تحذف|امسح|تمسح|ادفع|تدفع|امنح|تمنح|وافق|توافق"
)
_AR_ACTION = linear(rf"(?:^\W*(?:{_AR_VERBS})|(?:أن|ان)\s+(?:{_AR_VERBS}))")
_AR_LEAVE = linear(r"(?:دون|بدون|من غير)\s+(?:أن\s+)?(?:سؤال|تسأل|إذن|اذن|تأكيد|موافقة|مراجعة)")
_AR_FORBIDDEN = linear(r"^\W*(?:لا|لن|إياك|ممنوع)\s")

# A negation before what is asked turns it into what is forbidden ("The user
# does not want commands run without asking").
_NEGATION = linear(
    r"\b(?:not|never|no|nor|cannot|can't|don't|doesn't|won't|shouldn't|mustn't|refuses?|"
    r"avoid|stop)\b|n't\b",
    IGNORECASE,
)
_AR_NEGATION = linear(r"(?:^|\s)(?:لا|لن|لم|ليس|ممنوع|إياك)\s")


def asks_action(line: str) -> str | None:
    """Why `line` asks the assistant to act (the action named), or None for an
    ordinary preference."""
    text = " ".join(line.removeprefix("- ").split())
    if not text:
        return None
    released = released_action(text)  # "Never forget to send …": a negated holding back
    if released is not None:
        return f"asks the assistant to {released} (a negation of holding back releases it)"
    if _FORBIDDEN.search(text) or _AR_FORBIDDEN.search(text):
        return None
    leave = _LEAVE.search(text) or _AR_LEAVE.search(text)
    before_leave = text[: leave.start()] if leave is not None else ""
    if leave is not None and not (
        _NEGATION.search(before_leave) or _AR_NEGATION.search(before_leave)
    ):
        return "gives the assistant leave to act without asking"
    arabic = _AR_ACTION.search(text)
    if arabic is not None and not _negated(text, arabic.start()):
        return "asks the assistant to act (send, share, run, install, delete or grant)"
    for frame in (_IMPERATIVE, _GERUND_START, _ASKED, _WANTED, _HABIT, _PASSIVE_SUBJECT):
        found = frame.search(text)
        if found is not None and not _negated(text, found.start(), found.end()):
            return f"asks the assistant to {_named(found.group(0))}"
    ordered = ordered_action(text)  # "Always text my sister …": an imperative, from the parse
    return None if ordered is None else f"asks the assistant to {ordered}"


def _negated(text: str, start: int, end: int | None = None) -> bool:
    """A negation before what was found (or within it: "you should not send"), or
    an object that is none ("Send me nothing on weekends")."""
    before = text[: end if end is not None else start]
    after = " ".join(text[end if end is not None else start :].split()[:3])
    return bool(_NEGATION.search(before) or _AR_NEGATION.search(before) or _NOTHING.search(after))


_NOTHING = linear(r"\b(?:nothing|none|no|nobody|never)\b", IGNORECASE)


_SAID = (
    (linear(rf"\b(?:{SEND})", IGNORECASE), "send or share something"),
    (linear(rf"\b(?:{RUN})", IGNORECASE), "run, install or change something"),
    (linear(rf"\b(?:{GRANT})", IGNORECASE), "approve or allow something"),
    (linear(r"\b(?:includ|attach|past|shar)", IGNORECASE), "send or share something"),
)


def _named(said: str) -> str:
    """What the found words ask, in the reason's words."""
    return next((what for pattern, what in _SAID if pattern.search(said)), "act")
