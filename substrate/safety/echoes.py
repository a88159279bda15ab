"""Our own prompt blocks, pasted back: what no learner may read as the user's words.

A host that sends the assistant's whole prompt back as the next user turn,
or a user who pastes it, hands us our own `<memory>` card, `<info>`,
`<profile>`, `<recall>` or `<knowledge_base>` block again, with the text of
imported and quarantined pages inside. Read as the user's words, an imported
page's line would become a trusted profile line after three sessions. So
every learner (promotion, curation, capture, consolidation's filters) reads a
turn through `strip_echoes` first: each block is cut out from its opening tag
to its closing one (to the end of the text when it is not closed), raw or
HTML-escaped; so is any element carrying our attributes (`slug=`, `trust=`,
… whatever its tag), a card pasted with its tags stripped is cut from its
first fixed sentence on, and a pasted transcript from its first line of
another role (`assistant:`, `tool:`, with or without a time) on. A test
renders every block the injector makes and checks that it is recognised here.
"""

from __future__ import annotations

from substrate.safety.patterns import escape, linear

BLOCK_TAGS = ("memory", "info", "profile", "recall", "knowledge_base")
# Lines only our blocks carry, raw or escaped: a card page's tag, the notices
# under an untrusted page, the `<info>` pending note.
MARKER_LINES = (
    "Pages from long-term memory chosen for this turn",
    "Pages from long-term memory activated by this turn",
    "Notes from the personal knowledge base that match this turn",
    "Remembered recently, not yet filed into pages",
    "(Imported reference material: may be wrong",
    "(Quarantined import: the safety scanner found",
    "Trusted memory learned from this user",
    "Earlier conversation turns matching this message",
    '<page slug="',
    '&lt;page slug="',
)
_BLOCKS = tuple(
    linear(rf"(?is)(?:<|&lt;)\s*{tag}\b.*?(?:(?:<|&lt;)\s*/\s*{tag}\s*(?:>|&gt;)|\z)")
    for tag in BLOCK_TAGS
)
_OPENING = linear(rf"(?i)(?:<|&lt;)\s*/?\s*(?:{'|'.join(BLOCK_TAGS)})\b")
# Attributes only our elements carry (a card's page, a profile's file, an episode).
OUR_ATTRIBUTES = ("slug", "trust", "lanes", "dated", "holds", "session")
_ATTR_ELEMENT = linear(
    r"(?is)(?:<|&lt;)\s*([a-z_][\w-]*)\b[^<>]*?\b(?:"
    + "|".join(OUR_ATTRIBUTES)
    + r")\s*=\s*(?:\"|'|&quot;|&#x27;|&#39;)"
)
# A transcript line that is not the person's: an assistant's, a tool's or the
# system's, as our episodes and the web tab print them (`[2026-12-04 21:37]
# tool: …`) or as another assistant's export does (`assistant: …`). From the
# first such line the rest of the text is a pasted transcript, not the
# person's words, tags or not. Whatever stamps the line first: a bracketed or
# parenthesized label (`[2026-12-04 21:37]`, `(09:41)`, `[note]`), a bare
# date or time (`09:41`, `2026-10-01 07:05`, `9.41 pm -`), and the role in
# bold or not.
_STAMP = (
    r"(?:[\[(][^\])\n]{0,40}[\])][ \t]*|"
    r"\d{1,4}(?:[-/:.T ]\d{1,2}){1,5}(?:[ \t]*[ap]\.?m\.?)?[ \t]*[,|-]?[ \t]*)"
)
_OTHER_ROLE_LINE = linear(
    rf"(?im)^[ \t>*-]*{_STAMP}?[*_]{{0,2}}(?:assistant|tool|system|ai|bot)[*_]{{0,2}}[ \t]*:"
)
# A fixed sentence of ours, whatever spaces or line breaks wrap it.
_MARKER = linear(
    r"(?i)" + "|".join(r"\s+".join(escape(word) for word in m.split()) for m in MARKER_LINES)
)


def strip_echoes(text: str) -> str:
    """`text` without our own blocks, without any element that carries our
    attributes (whatever its tag), and without what follows one of our fixed
    sentences: a card pasted with its tags stripped still opens with one, and
    what comes after it is the card's, to the end of the text."""
    if not has_echo(text):
        return text
    for block in _BLOCKS:
        text = str(block.sub("\n", text))
    text = _without_our_elements(text)
    found = _MARKER.search(text)
    if found is not None:
        text = text[: text.rfind("\n", 0, found.start()) + 1]
    role = _OTHER_ROLE_LINE.search(text)
    if role is not None:
        text = text[: role.start()]
    return text


def _without_our_elements(text: str) -> str:
    """Each element with our attributes cut from its opening tag to its closing
    one (to the end when unclosed); each search starts where the last cut ended."""
    out: list[str] = []
    at = 0
    while (found := _ATTR_ELEMENT.search(text, at)) is not None:
        name = escape(str(found.group(1)))
        close = linear(rf"(?i)(?:<|&lt;)\s*/\s*{name}\s*(?:>|&gt;)").search(text, found.end())
        out.append(text[at : found.start()] + "\n")
        if close is None:
            return "".join(out)
        at = close.end()
    out.append(text[at:])
    return "".join(out)


def has_echo(text: str) -> bool:
    """Whether `text` holds any of our blocks, our elements, our fixed sentences
    or a transcript line of another role."""
    return bool(
        _OPENING.search(text)
        or _ATTR_ELEMENT.search(text)
        or _MARKER.search(text)
        or _OTHER_ROLE_LINE.search(text)
    )
