"""Which words of a statement told an end, so they stand as history beside the
fact they ended, and the rest stays current.

"rehomed Rolo with a farm family, he needed space to run. There's a dachshund
called Frankie on my sofa now" ends "my dog's a 3-year-old beagle, Rolo" and
tells a new dog. After it, nothing current should still name Rolo: its first
sentence is the record of the end (`status:ended`, under the statement's id
with `-1`, so forgetting the statement forgets it too); its second is the
current fact. A statement that is all end ("We had to say goodbye to Barney
this morning. The house is so quiet.") is the record of the end as a whole.

Only a statement that ended something on the page does this, and only the
parts that are only an end (every clause of the part ends something:
`events.only_an_end`) and name what ended (`reading.olds`, or the things a
change anchored to: `reading.things`): "traded the Fiesta in for a Niro" and
"Oat milk was costing me a fortune so it's black coffee now" tell more than
an end and stay current whole. A statement is cut into sentences
(`sentences`) and into clauses at the places a writer joins them (in Arabic,
at a comma and before "و" that opens a verb: `arabic.arabic_clauses`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from substrate.meaning.anchors import anchor
from substrate.meaning.arabic import arabic_clauses, has_arabic, unjoined
from substrate.meaning.events import only_an_end
from substrate.meaning.sentences import sentence_pieces
from substrate.meaning.slots import SlotReading, mentions
from substrate.pages.facts import ENDED_PART, FactBullet
from substrate.safety import linear

# Where a writer joins two clauses of one sentence ("Sunny died, and we're
# taking in a lovebird"; "left the choir — ukulele on Wednesdays now").
_JOINS = (", and ", "; ", " — ", " – ", ", ")
# A conjunction before a word of replacement joins an end to what replaced it
# ("Finished Whole30 yesterday and now the dietitian's got me on low-FODMAP");
# the word stays with the part it opens.
_BEFORE_NOW = linear(r"(?i)\s(?:and|so|but)\s+((?:now|instead|these days|nowadays)\b)")
_ASIDE = linear(r"\([^()]*\)")
_REASON = linear(r"(?i)\s(?:since|because|as|cos|'cause)\s")
# Words a part needs to stand alone: an Arabic word carries its pronoun and
# prepositions ("وقفت الكيتو").
_SHORTEST, _SHORTEST_AR = 3, 2


def told_ends(
    bullet: FactBullet, reading: SlotReading, ended: Sequence[FactBullet]
) -> tuple[FactBullet | None, FactBullet | None]:
    """(the current part, the record of the end) of `bullet`, a statement that
    ended the facts `ended`: (bullet, None) when no part names what ended or
    every part names the new value too; (None, the whole as ended) when every
    part names what ended."""
    names = _ended_names(reading, ended)
    if not names or bullet.entry_id is None:
        return bullet, None
    parts = _parts(bullet.text)
    told = [_tells_end(p, names, reading.value) for p in parts]
    if not any(told):
        return bullet, None
    if all(told):
        return None, bullet.ended()
    rest = unjoined(" ".join(p for p, t in zip(parts, told, strict=True) if not t))
    end = " ".join(p for p, t in zip(parts, told, strict=True) if t)
    return replace(bullet, text=rest), bullet.ended(f"{bullet.entry_id}{ENDED_PART}", end)


def _ended_names(reading: SlotReading, ended: Sequence[FactBullet]) -> list[str]:
    """What the statement calls the things it ended, as the ended facts name
    them: an ended value of `reading.olds`, or a thing a change anchored to."""
    said = [*reading.olds, *reading.things]
    return [n for n in said if any(_names(b.text, n) for b in ended)]


def _tells_end(part: str, names: list[str], value: str | None) -> bool:
    """The part tells only an end, of a thing that ended: no new value, no
    exchange ("traded the Fiesta in for a Niro"), no clause of anything else
    ("Oat milk was costing me a fortune so it's black coffee now")."""
    if value is not None and mentions(part, value):
        return False
    if not only_an_end(_without_asides(part)):
        return False
    return any(_names(part, n) for n in names)


def _without_asides(part: str) -> str:
    """The part without what it says by the way: a bracketed aside ("(she adores
    him)") or the reason it gives ("since the new flat doesn't allow snakes"),
    which tell why, not a value of their own."""
    bare = _ASIDE.sub(" ", part)
    reason = _REASON.search(bare)
    return (bare[: reason.start()] if reason is not None else bare).strip()


def _names(text: str, thing: str) -> bool:
    """`text` names `thing`: as written, or by its lemmas (`anchors`)."""
    return mentions(text, thing) or anchor(text, thing) > 0


def _parts(text: str) -> list[str]:
    """The statement's sentences, each cut where a writer joins two clauses, as
    written (a part too short to stand alone goes with its neighbour)."""
    out: list[str] = []
    short = ""  # a piece too short to stand alone, waiting for the next
    for _, sentence in sentence_pieces(text):
        arabic = has_arabic(sentence)
        pieces = arabic_clauses(sentence.strip()) if arabic else _joined(sentence.strip())
        for piece in pieces:
            piece = f"{short} {piece}".strip()
            short = ""
            if len(piece.split()) >= (_SHORTEST_AR if arabic else _SHORTEST):
                out.append(piece)
            elif out:
                out[-1] = f"{out[-1]} {piece}"
            else:
                short = piece  # "Honestly," goes with what follows it
    if short:
        out.append(short)
    return [p for p in out if p]


def _joined(sentence: str) -> list[str]:
    """An English sentence cut at every place a writer joins two clauses."""
    pieces = [sentence]
    now = _BEFORE_NOW.search(sentence)
    if now is not None and now.start() > 0:
        pieces = [sentence[: now.start()].strip(), sentence[now.start(1) :].strip()]
    for join in _JOINS:
        pieces = [q for p in pieces for q in _cut(p, join)]
    return pieces


def _cut(text: str, join: str) -> list[str]:
    at = text.find(join)
    if at <= 0:
        return [text]
    keep = 1 if join.startswith((",", ";")) else 0  # the comma stays with what it closes
    head = text[: at + keep].strip()
    return [head, *_cut(text[at + len(join) :].strip(), join)]
