"""Our own prompt blocks, pasted back: what no learner may read as the user's words.

A host that sends the assistant's whole prompt back as the next user turn,
or a user who pastes it, hands us our own `<memory>` card, `<info>`,
`<profile>`, `<recall>` or `<knowledge_base>` block again, with the text of
imported and quarantined pages inside. Read as the user's words, an imported
page's line would become a trusted profile line after three sessions. So
every learner (promotion, curation, capture, consolidation's filters) reads a
turn through `strip_echoes` first: each block is cut out from its opening tag
to its closing one (to the end of the text when it is not closed), raw or
HTML-escaped, and so is any line only our blocks carry. A test renders every
block the injector makes and checks that it is recognised here.
"""

from __future__ import annotations

from substrate.safety.patterns import linear

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


def strip_echoes(text: str) -> str:
    """`text` without our own blocks and without the lines only they carry."""
    if not has_echo(text):
        return text
    for block in _BLOCKS:
        text = str(block.sub("\n", text))
    lines = text.split("\n")
    kept = [line for line in lines if not any(marker in line for marker in MARKER_LINES)]
    return "\n".join(kept)


def has_echo(text: str) -> bool:
    """Whether `text` holds any of our blocks or their marker lines."""
    return bool(_OPENING.search(text)) or any(marker in text for marker in MARKER_LINES)
