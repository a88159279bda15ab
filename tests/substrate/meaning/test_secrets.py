"""A secret's value is read from the noun phrase its name heads, whatever
modifies it: "My password for the council portal is …" states one, a command's
usage line that names a password argument by a placeholder does not.

Generated: names × modifiers (none, a preposition's phrase, a relative clause,
a compound before) × links (is, was, a colon, a spaced dash, "is still") ×
values; the value before the copula; a verb of setting with "to" / "as".
Against them: every such frame with a placeholder, an argument's name, a word
that describes the secret, and usage lines of commands."""

from __future__ import annotations

import itertools
import random

import pytest

from substrate.meaning.secrets import stated_values
from substrate.safety import RULES, Scanner

PARSED = Scanner(reader=stated_values)

NAMES = ["password", "Password", "passcode", "PIN", "passphrase", "PIN code"]
LEADS = ["My", "The", "Our", "Mum's", "The office"]
MODIFIERS = [
    "",
    " for the council portal",
    " to the garden shed",
    " on my work laptop",
    " for the wifi at the cabin",
    " you use for the router",
    " that opens the side gate",
]
LINKS = [" is ", " was ", ": ", " - ", " is still ", " is now "]
VALUES = ["Hunter2-Xq!9", "4821", "Tr0ub4dor&3", "sunshine99", "Zk7!pq", "738291", "Lp-44-Rx"]
PLACEHOLDERS = ["<password>", "PASSWORD", "NEW_PASS", "${DB_PASSWORD}", "xxxxxxxx", "********"]
DESCRIBING = ["incorrect", "expired", "case-sensitive", "invalid", "mandatory", "temporary"]
USAGE = [
    "mysqladmin -u root password {ph}",
    "Usage: sshpass -p {ph} ssh user@host",
    "--password {ph}    the password to use when connecting",
    "-P, --passphrase={ph}   use {ph} as the passphrase",
    "openssl rsa -in key.pem -passin pass:{ph}",
    "password: {ph}",
    "PIN: {ph}",
    "Set the password with: passwd {ph}",
    "use {ph} as the password",
    "The password is {ph} (see the vault).",
]


def frames(rng: random.Random, values: list[str], n: int) -> list[str]:
    every = list(itertools.product(LEADS, NAMES, MODIFIERS, LINKS, values))
    return [
        f"{lead} {name}{mod}{link}{value}" for lead, name, mod, link, value in rng.sample(every, n)
    ]


def test_a_value_after_any_modifier_of_the_name_is_a_credential() -> None:
    for text in frames(random.Random(3), VALUES, 120):
        verdict = PARSED.check(text, "user")
        assert verdict.rule == "credential" and not verdict.ok, text


def test_the_value_before_the_copula_or_after_a_verb_of_setting_is_a_credential() -> None:
    rng = random.Random(5)
    for _ in range(30):
        name, value, mod = rng.choice(NAMES), rng.choice(VALUES), rng.choice(MODIFIERS[:5])
        for text in (
            f"{value} is my {name}{mod}",
            f"I changed my {name}{mod} to {value}",
            f"Use {value} as the {name}{mod}.",
            f"The {name}{mod} was set to {value}",
        ):
            assert PARSED.check(text, "user").rule == "credential", text


def test_the_issue_s_sentence_the_pattern_missed_is_read() -> None:
    text = "My password for the council portal is Hunter2-Xq!9"
    assert RULES.check(text, "user").ok  # side-by-side patterns miss the phrase
    assert PARSED.check(text, "user").rule == "credential"


@pytest.mark.parametrize("source", ["user", "import"])
def test_a_placeholder_or_an_argument_s_name_in_every_frame_is_not(source: str) -> None:
    for text in frames(random.Random(7), PLACEHOLDERS, 120):
        assert PARSED.check(text, source).rule != "credential", text


def test_a_word_that_describes_the_secret_is_not_a_value() -> None:
    for text in frames(random.Random(11), DESCRIBING, 80):
        assert PARSED.check(text, "user").rule != "credential", text


def test_command_usage_lines_naming_a_password_argument_pass_on_import() -> None:
    for line, ph in itertools.product(USAGE, ["PASSWORD", "<password>", "NEWPASS", "PHRASE"]):
        text = line.format(ph=ph)
        assert PARSED.check(text, "import").rule != "credential", text


def test_words_about_a_password_and_other_pins_pass() -> None:
    for text in [
        "passwd: change user password",
        "The wifi password is on the fridge.",
        "My password is stored in Bitwarden.",
        "My password manager is 1Password.",
        "Pin the poster to the wall by the door.",
        "Her passcode is the same as mine.",
        "The password is being reset tomorrow.",
    ]:
        assert PARSED.check(text, "user").ok, text


def test_two_clauses_each_state_their_own_value() -> None:
    found = stated_values("my pin is 4821 and my password is Marlin55")
    assert [(v.name.lower(), v.value) for v in found] == [("pin", "4821"), ("password", "Marlin55")]
