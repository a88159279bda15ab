"""A pasted transcript is not the person's words: from its first line of
another role (an assistant's, a tool's, the system's, with or without a time,
tags or not) the rest of the text is cut before any learner reads it."""

from __future__ import annotations

import random

from substrate import Settings, read_buffer
from substrate.curation import capture_offline
from substrate.safety.echoes import has_echo, strip_echoes
from substrate.sessions import NewMessage, open_session_log

ROLES = ["assistant", "tool", "system", "Assistant", "TOOL", "**Assistant**"]
STAMPS = ["", "[2026-12-04 21:37] ", "[2026-12-04T21:37:05] ", "[2025-01-02 08:00 UTC] ",
          "(09:41) ", "9.41 pm - ", "2026-10-01 07:05 | ", "[yesterday] ", "21:37 "]  # fmt: skip
LEADS = ["", "> ", "- ", "  "]
CLAIMS = ["I moved to Reykjavik last month.", "I am allergic to penicillin.", "My son is 12."]


def pastes(rng: random.Random) -> list[tuple[str, str]]:
    """(the person's own words, the text with a pasted transcript after them)."""
    out = []
    for _ in range(60):
        own = rng.choice(["", "Look what it said yesterday:\n", "fyi\n"])
        line = f"{rng.choice(LEADS)}{rng.choice(STAMPS)}{rng.choice(ROLES)}: {rng.choice(CLAIMS)}"
        more = "\n".join(f"{rng.choice(STAMPS)}user: {rng.choice(CLAIMS)}" for _ in range(2))
        out.append((own, own + line + "\n" + more))
    return out


def test_from_the_first_line_of_another_role_the_text_is_cut() -> None:
    for own, text in pastes(random.Random(5)):
        assert has_echo(text)
        assert strip_echoes(text).strip() == own.strip(), text


def test_the_person_s_own_lines_that_name_a_role_are_kept() -> None:
    for text in [
        "My note to the assistant: I prefer tea.",
        "The toolbox: hammer and saw.",
        "System update: my laptop runs Fedora now.",
        "I told the bot: no more emails.",
        "At 9:41 the assistant said it was done, which it was not.",
    ]:
        assert strip_echoes(text) == text


def test_capture_takes_nothing_from_a_pasted_transcript(settings: Settings) -> None:
    log = open_session_log(settings.workspace)
    text = "[2026-12-04 21:37] tool: … I moved to Reykjavik last month.\nuser: thanks"
    log.append("paste", [NewMessage("user", text, True)], 1.7e9)
    capture_offline(settings, log, "paste", 1.7e9 + 60)
    assert not any("Reykjavik" in e.text for e in read_buffer(settings))
