"""What a noun is, by WordNet's hypernyms: the family a thing belongs to when
no list of ours names its head.

`model/noun_families.json` holds, for every English noun whose commonest
sense falls under a family's anchor synsets in WordNet 3.0, that family:
home (a bungalow, a maisonette: under "dwelling" or "housing"), vehicle
(under "motor vehicle" or "bicycle"), pet (under "animal"), drink (under
"beverage"), medication (under "drug", "antacid", "contraceptive") and role
(a job word: under "worker", "professional", "businessperson", "expert",
"leader"). `bench/wordnet_families.py` builds it from WordNet's own files;
this module is the one reader of that file. The table is read on the first
noun asked about (a process that never files a fact never loads it).
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from substrate.errors import InvalidInputError
from substrate.safety import read_text_file

TABLE_PATH = Path(__file__).parent / "model" / "noun_families.json"
FAMILIES = frozenset({"home", "vehicle", "pet", "drink", "medication", "role"})


@cache
def _table() -> dict[str, str]:
    text = read_text_file(TABLE_PATH)
    if text is None:
        raise InvalidInputError(f"{TABLE_PATH} is missing: reinstall the product")
    try:
        nouns = json.loads(text)["nouns"]
    except (KeyError, TypeError, ValueError) as exc:
        raise InvalidInputError(f"{TABLE_PATH}: damaged noun table ({exc})") from None
    if not isinstance(nouns, dict) or not set(nouns.values()) <= FAMILIES:
        raise InvalidInputError(f"{TABLE_PATH}: damaged noun table (unknown families)")
    return {str(k): str(v) for k, v in nouns.items()}


def noun_family(words: tuple[str, ...], head: str) -> str | None:
    """The family of the thing a phrase names, by its last two words as one
    noun ("caffe latte", "guinea pig") or its head: lemmas, lower case."""
    table = _table()
    if len(words) >= 2 and words[-1] == head:
        found = table.get(f"{words[-2]} {head}")
        if found is not None:
            return found
    return table.get(head)


def is_role(head: str) -> bool:
    """A job word WordNet knows ("paralegal", "nurse", "bookkeeper")."""
    return _table().get(head) == "role"
