"""User text kept inert beside the product's own markers.

The buffer, the archive and a page's fact bullets end a line with the
product's markers, HTML comments (` <!-- src:captured from:… -->`, ` <!--
held:RULE -->`, ` <!-- e:… status:… -->`, `<!-- memory:facts -->`). Text a
person or a conversation supplies may hold the same syntax ("… <!-- released
-->"); read back as a marker it would release a held entry, forge a fact's
lineage or end a fact section. So every writer of user text stores it with
each comment opener escaped, and every reader restores it: no stored user
text contains `<!--`, whatever it said, and it reads back exactly as written.

The escape is reversible for every text: one backslash is added after `<!`
in each `<!`, backslashes, `--` run (`<!--` → `<!\\--`, `<!\\--` → `<!\\\\--`)
and one is taken away on reading.
"""

from __future__ import annotations

from substrate.safety.patterns import linear

# `<!` then any backslashes then `--`: the opener and everything that escapes to it
_OPENER = linear(r"<!(\\*)--")
_ESCAPED = linear(r"<!\\(\\*)--")
OPENER = "<!--"


def inert(text: str) -> str:
    """`text` with every comment opener escaped (see the module doc)."""
    if "<!" not in text:
        return text
    return _OPENER.sub(lambda m: "<!\\" + m.group(1) + "--", text)


def restored(text: str) -> str:
    """The text `inert` was given."""
    if "<!\\" not in text:
        return text
    return _ESCAPED.sub(lambda m: "<!" + m.group(1) + "--", text)
