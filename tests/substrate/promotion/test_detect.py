"""The detectors: every row of the seeds' table, the near-misses, the bounds on
Arabic captures, project facts and the exclusive categories."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from substrate.promotion import PREFERENCE, PROJECT_FACT, detect
from substrate.promotion.categories import category_of, conflicts

SEED_TABLE = [
    ("I prefer TypeScript", "Prefer TypeScript."),
    ("I'd prefer TypeScript", "Prefer TypeScript."),
    ("My preference is TypeScript", "Prefer TypeScript."),
    ("We prefer TypeScript", "Prefer TypeScript."),
    ("Default to TypeScript", "Prefer TypeScript."),
    ("Use TypeScript by default", "Prefer TypeScript."),
    ("Please switch to TypeScript by default", "Prefer TypeScript."),
    ("أفضل TypeScript", "Prefer TypeScript."),
    ("استخدم pnpm test افتراضياً", "Prefer pnpm test."),
    ("خلّي الردود مختصرة", "Prefer concise replies."),
]


@pytest.mark.parametrize(("statement", "canonical"), SEED_TABLE)
def test_every_seed_row_canonicalizes(statement: str, canonical: str) -> None:
    found = detect(statement)
    assert found is not None and found.kind == PREFERENCE
    assert found.content == canonical


@pytest.mark.parametrize(
    "statement",
    [
        "I like TypeScript",
        "Maybe use TypeScript",
        "Could you use TypeScript",
        "Switch to TypeScript",
    ],
)
def test_near_misses_are_not_preferences(statement: str) -> None:
    assert detect(statement) is None


@pytest.mark.parametrize(
    ("statement", "canonical"),
    [
        ("أفضل ~/.estacoda/foo", "Prefer ~/.estacoda/foo."),
        ("أفضل GPT-5", "Prefer GPT-5."),
        ("أفضّل Python", "Prefer Python."),
        ("استخدم npm افتراضيا", "Prefer npm."),
        ("أفضل OPENAI_API_KEY", "Prefer OPENAI_API_KEY."),  # detected; refused at write
    ],
)
def test_arabic_captures_keep_technical_values(statement: str, canonical: str) -> None:
    found = detect(statement)
    assert found is not None and found.content == canonical


@pytest.mark.parametrize(
    "statement",
    ["أفضل القهوة في الصباح", "أفضل أن نذهب إلى البحر", "استخدم الطريقة القديمة افتراضياً"],
)
def test_arabic_captures_refuse_natural_language(statement: str) -> None:
    assert detect(statement) is None


def test_one_key_for_every_wording() -> None:
    keys = {detect(s).key for s, _ in SEED_TABLE[:8]}  # type: ignore[union-attr]
    assert keys == {"prefer typescript"}


@pytest.mark.parametrize(
    ("statement", "canonical"),
    [
        ("The project uses FastAPI", "The project uses FastAPI."),
        ("Run tests with pytest -q", "Run tests with pytest -q."),
        ("The fixtures are stored under tests/data", "The fixtures are stored under tests/data."),
    ],
)
def test_project_facts_are_their_own_kind(statement: str, canonical: str) -> None:
    found = detect(statement)
    assert found is not None and found.kind == PROJECT_FACT and found.content == canonical
    assert category_of(found.key) is None or found.kind == PROJECT_FACT


@pytest.mark.parametrize(
    "statement",
    [
        "I prefer to stay home tonight",
        "I prefer it when you ask",
        "I prefer the beach because it is calm",
    ],
)
def test_clauses_and_pronouns_are_not_values(statement: str) -> None:
    assert detect(statement) is None


@pytest.mark.parametrize(
    ("first", "second", "category"),
    [
        ("Prefer concise replies.", "Prefer detailed replies.", "reply-verbosity"),
        ("Prefer TypeScript.", "Prefer JavaScript.", "language-default"),
        ("Prefer pnpm test.", "Prefer npm test.", "test-command"),
        ("Prefer pnpm.", "Prefer npm.", "package-manager"),
        ("Always use strict mode.", "Always use semicolons.", "code-style"),
    ],
)
def test_categories_come_from_content(first: str, second: str, category: str) -> None:
    assert category_of(first.lower().rstrip(".")) == category
    assert category_of(second.lower().rstrip(".")) == category


ROOM = Path(__file__).resolve().parents[3] / "substrate" / "promotion"
MODEL_MODULES = ("substrate.index", "substrate.llm", "openai", "fastembed", "onnxruntime")


def test_the_promotion_room_imports_no_model_or_llm_client() -> None:
    for path in ROOM.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            for name in names:
                assert not name.startswith(MODEL_MODULES), f"{path.name} imports {name}"


@pytest.mark.parametrize(
    ("statement", "canonical"),
    [
        ("btw I really prefer dark mode in every app", "Prefer dark mode."),
        ("I'd rather use tabs", "Prefer tabs."),
        (
            "Also, I prefer routes with minimal traffic and nice scenery.",
            "Prefer routes with minimal traffic and nice scenery.",
        ),
        ("We would much rather have spaces", "Prefer spaces."),
        ("Please keep answers short, I hate long replies.", "Prefer concise replies."),
        ("Make your responses detailed; I like depth", "Prefer detailed replies."),
        ("Call me Priya, not Ms Raman.", "Call me Priya."),
        ("please call me Sam", "Call me Sam."),
        ("ناديني سارة", "Call me سارة."),
        ("أنا أفضّل الوضع الداكن", "أفضّل الوضع الداكن."),
    ],
)
def test_everyday_wordings_of_a_preference_are_read(statement: str, canonical: str) -> None:
    found = detect(statement)
    assert found is not None and found.kind == PREFERENCE and found.content == canonical


@pytest.mark.parametrize(
    "statement",
    [
        "call me maybe",
        "Call me when you can",
        "I'd rather not talk about it",
        "I'd rather show you a photo.",
        "أفضل مطعم في المدينة هو هذا",  # "the best restaurant": no subject, not a preference
        "أنا أفضل لاعب في الفريق",  # "I am the best player": an indefinite noun
    ],
)
def test_everyday_near_misses_are_not_preferences(statement: str) -> None:
    assert detect(statement) is None


@pytest.mark.parametrize(
    ("said", "again"),
    [
        ("Prefer dark mode, honestly.", "I prefer dark mode."),
        ("I really prefer dark mode these days.", "Prefer dark mode"),
        ("I prefer tabs over spaces, to be honest.", "I prefer tabs over spaces now."),
    ],
)
def test_filler_never_splits_one_preference_into_two_keys(said: str, again: str) -> None:
    first, second = detect(said), detect(again)
    assert first is not None and second is not None
    assert first.key == second.key and "honestly" not in first.content


def test_a_new_value_said_with_filler_conflicts_with_the_old_one() -> None:
    dark, light = detect("Prefer dark mode, honestly."), detect("Prefer light mode now.")
    assert dark is not None and light is not None
    assert (dark.content, light.content) == ("Prefer dark mode.", "Prefer light mode.")
    assert conflicts(dark.key, light.key)
