"""A statement that opens by asking the assistant for something is about what
follows the request: a card line after it is the named person's, the
person's own sentence after it is theirs. Names and addresses are made up."""

from __future__ import annotations

import pytest

from substrate.consolidation.lifecycle import reading_of
from substrate.meaning.subjects import read_subject
from tests.made_up import names

REQUESTS = [
    "Can you draft an email signature for my new {r}?",
    "Could you save this contact for my {r}?",
    "Please add my {r} to the list.",
]
ROLES = ["assistant", "intern", "colleague"]


@pytest.mark.parametrize("request_", REQUESTS)
def test_a_card_after_a_request_is_the_named_persons(request_: str) -> None:
    for (first, last), role in zip(
        zip(names(3, len(request_)), names(3, 2 * len(request_)), strict=True), ROLES, strict=True
    ):
        said = (
            f"{request_.format(r=role)} {first} {last}, Studio Lead, "
            f"{first.lower()}@{last.lower()}.example"
        )
        assert read_subject(said).kind != "me", said
        assert reading_of(said).slot != "email", said


@pytest.mark.parametrize("request_", REQUESTS)
def test_the_persons_own_sentence_after_a_request_is_theirs(request_: str) -> None:
    for place, role in zip(names(3, 3 * len(request_)), ROLES, strict=True):
        said = f"{request_.format(r=role)} I moved to {place} last week"
        assert read_subject(said).kind == "me", said
        assert reading_of(said).slot == "home", said
