"""A thing's family by what it is: WordNet's hypernyms type nouns no list of
ours names (the shipped table), and the builder reads WordNet's own file
format (a small WordNet written here, so the test needs no WordNet installed)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from substrate.consolidation.lifecycle import reading_of
from substrate.meaning.events import FAMILY_OF_HEAD, ROLE_WORDS
from substrate.meaning.nouns import TABLE_PATH, is_role, noun_family
from tests.made_up import names

ROOT = Path(__file__).resolve().parents[3]

# Nouns none of our lists names, one per family WordNet gives.
UNLISTED = {
    "home": ["chalet", "manor", "farmhouse", "penthouse", "vicarage"],
    "vehicle": ["limousine", "minivan", "roadster", "convertible", "sedan"],
    "pet": ["dachshund", "greyhound", "cockatiel", "spaniel", "terrapin"],
    "drink": ["stout", "cappuccino", "espresso", "lemonade", "cider"],
    "medication": ["sertraline", "ramipril", "metformin", "omeprazole", "ibuprofen"],
    "role": ["paralegal", "locksmith", "bookkeeper", "plumber", "midwife"],
}


@pytest.mark.parametrize("family", sorted(UNLISTED))
def test_wordnet_types_nouns_no_list_names(family: str) -> None:
    for noun in UNLISTED[family]:
        assert noun not in FAMILY_OF_HEAD and noun not in ROLE_WORDS, noun
        assert noun_family((noun,), noun) == family, noun


def test_a_noun_is_typed_by_its_commonest_sense_only() -> None:
    # "terrace" is a patio before a row of houses, "head" a body part before a
    # head of cattle, "coil" a structure before a contraceptive: none is typed
    for noun in ("terrace", "head", "coil", "table", "friend", "sister"):
        assert noun_family((noun,), noun) is None, noun


def test_two_words_are_read_as_one_noun_before_the_head() -> None:
    assert noun_family(("guinea", "pig"), "pig") == "pet"
    assert noun_family(("caffe", "latte"), "latte") == "drink"


def test_the_shipped_table_carries_wordnets_notice() -> None:
    doc = json.loads(TABLE_PATH.read_text(encoding="utf-8"))
    assert "Princeton University" in doc["license"]
    assert is_role("paralegal") and not is_role("dachshund")


ROLE_NOTES = ["{role} at {org} Partners", "{role} with {org} Group, two years in"]


@pytest.mark.parametrize("frame", ROLE_NOTES)
def test_a_note_of_a_role_wordnet_knows_at_an_organisation_names_the_employer(frame: str) -> None:
    for role, org in zip(UNLISTED["role"], names(5, len(frame)), strict=True):
        said = frame.format(role=role.capitalize(), org=org)
        reading = reading_of(said)
        assert reading.slot == "employer", (said, reading)
        assert reading.value is not None and org.lower() in reading.value, (said, reading)


@pytest.mark.parametrize(
    ("frame", "family", "slot"),
    [
        ("Just bought a {noun} from {name} Motors", "vehicle", "vehicle:car"),
        ("We moved into a {noun} in {name}", "home", "home"),
    ],
)
def test_a_start_of_a_thing_wordnet_types_names_a_value_of_its_family(
    frame: str, family: str, slot: str
) -> None:
    for noun, name in zip(UNLISTED[family], names(5, len(frame)), strict=True):
        said = frame.format(noun=noun, name=name)
        reading = reading_of(said)
        assert reading.slot == slot, (said, reading)


def _builder() -> object:
    spec = importlib.util.spec_from_file_location("wnf", ROOT / "bench" / "wordnet_families.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["wnf"] = module
    spec.loader.exec_module(module)
    return module


def _synset(offset: str, words: list[str], ups: list[tuple[str, str]]) -> str:
    head = f"{offset} 05 n {len(words):02x} " + " ".join(f"{w} 0" for w in words)
    pointers = " ".join(f"{symbol} {up} n 0000" for symbol, up in ups)
    return f"{head} {len(ups):03d} {pointers} | a gloss"


def _index(lemma: str, offsets: list[str]) -> str:
    return f"{lemma} n {len(offsets)} 1 @ {len(offsets)} 0 " + " ".join(offsets)


def test_the_builder_types_every_noun_under_an_anchor_by_its_first_sense(tmp_path: Path) -> None:
    synsets = {
        "00000001": (["entity"], []),
        "00000002": (["beverage"], [("@", "00000001")]),
        "00000003": (["tea"], [("@", "00000002")]),
        "00000004": (["tea_party"], [("@", "00000001")]),
        "00000005": (["Earl_Grey"], [("@i", "00000003")]),  # an instance of tea
        "00000006": (["animal"], [("@", "00000001")]),
        "00000007": (["drug"], [("@", "00000001")]),
        "00000008": (["dwelling"], [("@", "00000001")]),
        "00000009": (["housing"], [("@", "00000001")]),
        "00000010": (["motor_vehicle"], [("@", "00000001")]),
        "00000011": (["bicycle"], [("@", "00000001")]),
        "00000012": (["antacid"], [("@", "00000001")]),
        "00000013": (["contraceptive"], [("@", "00000001")]),
        "00000014": (["worker"], [("@", "00000001")]),
        "00000015": (["professional"], [("@", "00000001")]),
        "00000016": (["businessperson"], [("@", "00000001")]),
        "00000017": (["expert"], [("@", "00000001")]),
        "00000018": (["leader"], [("@", "00000001")]),
        "00000019": (["party"], [("@", "00000001")]),
    }
    data = "\n".join(_synset(o, w, u) for o, (w, u) in synsets.items())
    lemmas = {w: [o] for o, (ws, _) in synsets.items() for w in ws}
    lemmas["tea"] = ["00000003", "00000004"]
    lemmas["party"] = ["00000019", "00000003"]  # tea only in its second sense
    index = "\n".join(_index(w.lower(), o) for w, o in sorted(lemmas.items()))
    (tmp_path / "data.noun").write_text("  header line\n" + data + "\n", encoding="latin-1")
    (tmp_path / "index.noun").write_text("  header line\n" + index + "\n", encoding="latin-1")
    table = _builder().build(tmp_path)  # type: ignore[attr-defined]
    assert table["tea"] == "drink"
    assert table["earl grey"] == "drink"  # an instance is under its class
    assert "party" not in table and "tea party" not in table
    assert table["beverage"] == "drink" and table["worker"] == "role"
