"""A password or a PIN stated in plain words is refused like a key-shaped
secret, from every source, with the scanner saying why; words about a
password ("is expired", "is in the drawer") are not one."""

from __future__ import annotations

import random

import pytest

from substrate import Settings

NAMES = ["password", "Password", "passcode", "PIN", "pin code", "wifi password"]
LEADS = ["my", "the", "our", "Mum's", "the office"]
VALUES = ["hunter2", "4821", "Tr0ub4dor", "sunshine99", "c0ffee!", "738291", "Xq7-kk"]
ARABIC = ["كلمة المرور هي شمس2024", "الرقم السري: 4821", "كلمة السر هي ياسمين77"]
ABOUT = [
    "my password is expired",
    "the password is in the drawer",
    "I forgot my password again",
    "my password is what IT reset",
    "نسيت كلمة المرور لحاسوبي بعد أن غيرتها أمس.",
    "the PIN is on the back of the card",
    "password: <your password>",
]


def stated(rng: random.Random) -> list[str]:
    out = []
    for _ in range(40):
        lead, name, value = rng.choice(LEADS), rng.choice(NAMES), rng.choice(VALUES)
        verb = rng.choice(["is", "was", ":"])
        joiner = f" {verb} " if verb != ":" else ": "
        out.append(f"{lead} {name}{joiner}{value}".strip())
    return out + ARABIC


@pytest.mark.parametrize("source", ["user", "import", "llm", "captured"])
def test_a_stated_password_or_pin_is_refused_with_why(settings: Settings, source: str) -> None:
    for text in stated(random.Random(10)):
        verdict = settings.scanner.check(text, source)
        assert not verdict.ok and verdict.rule == "credential", text
        assert verdict.detail, text  # `memory scan` says why


def test_words_about_a_password_pass(settings: Settings) -> None:
    for text in ABOUT:
        assert settings.scanner.check(text, "user").ok, text
