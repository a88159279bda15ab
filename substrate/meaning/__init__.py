"""Meaning: what a text says, read once for every path that takes text.

Whose words a text holds (the person's own, or what they pass on: quoted,
forwarded, pasted, given to transform, reported, hypothetical: `voices`,
`attribution`), who a statement is about (`subjects`), which slot family it
states and with which value (`slots`, `families`), and what it does to what
was said before (an assertion, a cessation of something named, a
hypothetical: `statements`). `remember` on every surface, capture, import,
curation, consolidation and promotion read text through this room, so the
same words mean the same thing whichever way they arrive. It imports `safety`
and `config` only: the sentence embedding it types families with comes from
the composition root (`Settings.embed`).
"""

from substrate.meaning.attribution import OWN, PASSED_ON, Attribution, attribute
from substrate.meaning.reading import Reading, read_text

__all__ = ["OWN", "PASSED_ON", "Attribution", "Reading", "attribute", "read_text"]
