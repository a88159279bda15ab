"""The family head: which slot family a statement the rules could not read states.

The rules (`slots`) read the wordings they know with their values; an
everyday wording they do not know ("Started my new gig at Skyscanner",
"we're Morningside people now") still states the person's work or home. The
head reads the statement's sentence vector (the multilingual USE the index
already computes, from the composition root: `Settings.embed`) beside its
cosine to each family's prototype (the mean vector of the family's
development sentences) and answers a family, or none: multinomial logistic
regression fitted by `bench/meaning_train.py` on the development half of
`bench/wordings_data.py` and of LoCoMo's and LongMemEval's statements, its
weights shipped here (`model/families.json`). Its threshold is the lowest at
which it types at most 1% of the development half's statements that state no
family, so a topical sentence ("the boiler broke again") never takes the
home slot. It types only what the rules left unslotted: the person's (or a
named person's) own present assertions, never words passed on, a
hypothetical, a cessation or the past. A family typed this way has no value:
within the slot, the newest statement is the current one.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from substrate.errors import InvalidInputError
from substrate.meaning.reading import Reading
from substrate.meaning.slots import SlotReading
from substrate.safety import read_text_file

MODEL_PATH = Path(__file__).parent / "model" / "families.json"
NONE = "none"
MAX_WORDS = 40  # a longer statement is a story, not a value
# Below its threshold, the head still leans to a family when that family is
# likelier than all the others together: such a fact is filed where it would
# have been, its slot marked `lean:` (`lean:pref:drink`), and a later statement
# the head leans to the same family ends it only when it says something took
# another's place (`consolidation.lifecycle`): two statements that lean one way,
# the later one a change, are stronger evidence than either alone.
LEAN = 0.5
LEANS = "lean:"
# The families a lean may mark: the habits the rules read least. Home and work
# have rules enough, and on `bench/wordings.py`'s development half a lean to
# work paired a trip with workmates and a promotion (2 more wrong supersessions
# of 302).
LEAN_FAMILIES = frozenset({"drink", "diet"})
# Each family the head answers: the slot it fills and the person's page for it.
SLOTS: dict[str, tuple[str, str]] = {
    "home": ("home", "home"),
    "work": ("employer", "work"),
    "drink": ("pref:drink", "food"),
    "diet": ("diet", "health"),
}
Embed = Callable[[str], Any]


@dataclass(frozen=True)
class HeadWeights:
    classes: list[str]
    weights: Any  # (classes, features)
    bias: Any  # (classes,)
    prototypes: Any  # (families, dim), unit rows
    threshold: float

    @classmethod
    def load(cls, path: Path) -> HeadWeights:
        import numpy as np

        text = read_text_file(path)
        if text is None:
            raise FileNotFoundError(f"{path} is missing")
        doc = json.loads(text)
        try:
            out = cls(
                list(doc["classes"]),
                np.asarray(doc["weights"], dtype=np.float64),
                np.asarray(doc["bias"], dtype=np.float64),
                np.asarray(doc["prototypes"], dtype=np.float64),
                float(doc["threshold"]),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise InvalidInputError(f"{path}: damaged family head weights ({exc})") from None
        dim = out.prototypes.shape[1] + out.prototypes.shape[0]
        if out.weights.shape != (len(out.classes), dim) or out.bias.shape != (len(out.classes),):
            raise InvalidInputError(f"{path}: weight counts do not match their dimensions")
        return out


def features(vector: Any, prototypes: Any) -> Any:
    """The statement's unit vector and its cosine to each family prototype."""
    import numpy as np

    v = np.asarray(vector, dtype=np.float64).reshape(-1)
    norm = float(np.linalg.norm(v))
    unit = v / norm if norm else v
    return np.concatenate([unit, prototypes @ unit])


def probabilities(weights: Any, bias: Any, x: Any) -> Any:
    import numpy as np

    logits = weights @ x + bias
    logits = logits - logits.max()
    exp = np.exp(logits)
    return exp / exp.sum()


class FamilyHead:
    """Reads its weights on the first statement it types (a process that never
    consolidates never loads numpy); a damaged install is reported then."""

    def __init__(self, embed: Embed, path: Path = MODEL_PATH) -> None:
        self._embed = embed
        self._path = path
        self._loaded: HeadWeights | None = None

    @property
    def threshold(self) -> float:
        return self._weights().threshold

    def _weights(self) -> HeadWeights:
        if self._loaded is None:
            try:
                self._loaded = HeadWeights.load(self._path)
            except (OSError, ValueError) as exc:
                raise InvalidInputError(f"the family head cannot be loaded: {exc}") from None
        return self._loaded

    def family(self, text: str) -> tuple[str, float] | None:
        """The family `text` states and the head's probability, when over its
        threshold; None when it states none."""
        found = self.lean(text)
        if found is None or found[1] < self._weights().threshold:
            return None
        return found

    def lean(self, text: str) -> tuple[str, float] | None:
        """The family the head finds likeliest for `text` and its probability,
        whatever it is; None when that is no family."""
        w = self._weights()
        p = probabilities(w.weights, w.bias, features(self._embed(text), w.prototypes))
        best = int(p.argmax())
        name = w.classes[best]
        return None if name == NONE else (name, float(p[best]))


def typed(reading: Reading, head: FamilyHead | None) -> SlotReading:
    """The reading's slot, or, when the rules read none, the family the head types
    (see the module doc for what it never types)."""
    slot = reading.slot
    if head is None or slot.slot is not None or slot.past or slot.olds:
        return slot
    if reading.passed_on or reading.kind != "assertion" or reading.subject.kind == "other":
        return slot
    own = reading.subject.own
    if not own or len(own.split()) > MAX_WORDS or own.rstrip().endswith(("?", "؟")):
        return slot
    found = head.lean(own)
    if found is None or found[0] not in SLOTS or found[1] < LEAN:
        return slot
    name, topic = SLOTS[found[0]]
    if found[1] < head.threshold:
        if found[0] not in LEAN_FAMILIES:
            return slot
        return replace(slot, slot=f"{LEANS}{name}")  # placed as before; see `leans`
    return replace(slot, slot=name, topic=topic, single=True)


def leans(slot: str | None) -> bool:
    """A slot the head leans to without being sure (`LEAN`)."""
    return slot is not None and slot.startswith(LEANS)
