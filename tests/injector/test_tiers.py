"""Every tier the predicates can select renders what it promises, through the one
spine: off nothing, v1 `<knowledge_base>` from the knowledge base and no
substrate work, v2 its own `<memory>` block and `<info>`, v3 the card."""

from __future__ import annotations

from pathlib import Path

import pytest

from injector import Injector
from service.settings_loader import build_settings
from substrate import Settings, remember
from substrate.index import EdgeStore, SearchIndex
from substrate.profile import profile_path
from tests.conftest import PageWriter
from tests.embedders import HashingEmbedder

NOW = 1_800_000_000.0
PAGES = {
    "people/sam": "---\ntitle: Sam\nlinks: [places/lisbon]\n---\nSam is allergic to shellfish.",
    "places/lisbon": "---\ntitle: Lisbon\n---\nThe family lives in Graça, Lisbon, near the tram.",
    "notes/tea": "---\ntitle: Tea\n---\nAlice prefers green tea in the afternoon.",
}
NOTES = {
    "health/allergies": "# Allergies\n\nSam is allergic to shellfish; the EpiPen is in the red bag.",
    "travel/porto": "# Porto\n\nThe train to Porto leaves on Fridays at noon.",
}


def configured(settings: Settings, text: str) -> Settings:
    settings.workspace.config_path.write_text(text)
    return build_settings(settings.workspace.root)


def injector_for(settings: Settings) -> Injector:
    corpus = settings.indexed_corpus()
    index = SearchIndex(corpus, HashingEmbedder(), EdgeStore(corpus.workspace.index_dir / "qdrant"))
    index.maintain()
    return Injector(settings, index, clock=lambda: NOW)


def write_notes(settings: Settings) -> None:
    pkb = settings.pkb().workspace.concepts_dir
    for slug, text in NOTES.items():
        path = pkb / f"{slug}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


@pytest.fixture
def corpus(settings: Settings, write_page: PageWriter) -> Settings:
    for slug, text in PAGES.items():
        write_page(slug, text)
    write_notes(settings)
    remember(settings, "Sam starts the new job in May")
    profile = profile_path(settings.workspace, "USER.md")
    profile.parent.mkdir(parents=True, exist_ok=True)
    profile.write_text("# User\n\nName: Sam.\n")
    return settings


def test_off_renders_nothing_at_all(corpus: Settings) -> None:
    settings = configured(corpus, "[memory]\nenabled = false\n")
    injector = injector_for(settings)
    blocks = injector.assemble("is Sam allergic to shellfish?")
    assert blocks.as_json() == {"tier": "off", "selected": []}
    rendered = (blocks.memory, blocks.knowledge_base, blocks.info, blocks.profile, blocks.recall)
    assert rendered == ("", "", "", "", "")
    injector.close()


def test_v1_renders_the_knowledge_base_and_does_no_substrate_work(corpus: Settings) -> None:
    settings = configured(corpus, "[memory.v2]\nenabled = false\n[memory.v3]\nlive = false\n")
    injector = injector_for(settings)
    blocks = injector.assemble("is Sam allergic to shellfish?")
    out = blocks.as_json()
    assert out["tier"] == "v1" and "memory" not in out and "info" not in out
    kb = out["knowledge_base"]
    assert kb.startswith("<knowledge_base>\n") and kb.endswith("</knowledge_base>")
    assert '<note slug="health/allergies" title="Allergies">' in kb and "EpiPen" in kb
    assert "Porto" not in kb  # below the relevance floor for this turn
    assert [s.slug for s in blocks.selected] == ["health/allergies"]
    assert blocks.selected[0].lanes == ("pkb",)
    state = settings.workspace.state_dir
    assert not (state / "index-state.json").exists()  # the concept-page index was never built
    assert not (state / "qdrant").exists()
    assert (state / "pkb" / "index-state.json").exists()
    assert "people/sam" not in kb  # concept pages are not read on v1
    injector.close()


def test_v2_renders_its_own_block_beside_info(corpus: Settings) -> None:
    # a lower router threshold than the default lets the linked page through
    settings = configured(
        corpus, "[memory.v3]\nlive = false\n[memory.v2]\nrouter_threshold = 0.2\n"
    )
    injector = injector_for(settings)
    blocks = injector.assemble("is Sam allergic to shellfish?")
    out = blocks.as_json()
    assert out["tier"] == "v2" and "knowledge_base" not in out
    memory = out["memory"]
    assert memory.startswith("<memory>\nPages from long-term memory activated by this turn.")
    assert '<page slug="people/sam" title="Sam" via="search,entity"' in memory
    assert "new job in May" in out["info"]
    lanes = {s.slug: s.lanes for s in blocks.selected}
    assert "link" in lanes["places/lisbon"]  # reached by spreading over Sam's link
    assert "Allergies" not in memory  # the knowledge base is v1's
    injector.close()


def test_a_v2_era_config_without_v3_live_gets_the_v2_engine_not_an_empty_card(
    corpus: Settings,
) -> None:
    settings = configured(
        corpus, "[memory.v2]\nenabled = true\ndense_weight = 0.3\nsparse_weight = 0.7\n"
    )
    injector = injector_for(settings)
    blocks = injector.assemble("is Sam allergic to shellfish?")
    assert blocks.tier == "v2" and "people/sam" in blocks.memory
    injector.close()
    Path(settings.workspace.config_path).unlink()  # no config.toml at all: v2 by the predicates
    bare = build_settings(settings.workspace.root)
    injector = injector_for(bare)
    assert injector.assemble("is Sam allergic to shellfish?").memory.startswith("<memory>")
    injector.close()


def test_v3_renders_the_card(corpus: Settings) -> None:
    injector = injector_for(corpus)
    blocks = injector.assemble("is Sam allergic to shellfish?")
    assert blocks.tier == "v3"
    assert blocks.memory.startswith("<memory>\nPages from long-term memory chosen for this turn.")
    assert 'lanes="entity,sim"' in blocks.memory and "new job in May" in blocks.info
    injector.close()


@pytest.mark.parametrize(
    ("config", "tier"),
    [
        ("[memory]\nenabled = false\n", "off"),
        ("[memory.v2]\nenabled = false\n[memory.v3]\nlive = false\n", "v1"),
        ("[memory.v3]\nlive = false\n", "v2"),
        ("[memory.v3]\nlive = true\n", "v3"),
    ],
)
def test_the_profile_is_trusted_on_every_tier_that_is_on(
    corpus: Settings, config: str, tier: str
) -> None:
    injector = injector_for(configured(corpus, config))
    blocks = injector.assemble("what is my name?")
    assert blocks.tier == tier
    assert ("Name: Sam." in blocks.profile) == (tier != "off")
    injector.close()
