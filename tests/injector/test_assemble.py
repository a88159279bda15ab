"""Injector.assemble end to end over a real index (hashing embedder, Qdrant Edge)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from injector import Injector
from service.settings_loader import build_settings
from substrate import Settings, Workspace, init_workspace
from substrate.index import EdgeStore, SearchIndex, Vectors
from tests.conftest import PageWriter
from tests.embedders import HashingEmbedder

PAGES = {
    "people/sam": "---\ntitle: Sam\naliases: [Sammy]\n---\nSam is allergic to shellfish and carries an EpiPen.",
    "places/lisbon": "---\ntitle: Lisbon\norigin_date: 2022-05-01\n---\nThe family lives in Graça, Lisbon.",
    "prefs": "---\ntitle: Preferences\ncore: true\n---\nAnswer briefly; metric units.",
    "imports/trip": "---\ntitle: Porto trip\nsource: import:chatgpt\n---\nTrain to Porto on Friday at noon.",
    "notes/tea": "---\ntitle: Tea\n---\nAlice prefers green tea in the afternoon.",
}


class NoQueries(HashingEmbedder):
    """Fails the test if anything embeds a query (the voice front door must not)."""

    def embed_query(self, text: str) -> Vectors:
        raise AssertionError("the voice front door embedded a query")

    def embed_queries(self, texts: Sequence[str]) -> Vectors:
        raise AssertionError("the voice front door embedded a query")


def make(settings: Settings, embedder: HashingEmbedder | None = None) -> Injector:
    index = SearchIndex(
        settings, embedder or HashingEmbedder(), EdgeStore(settings.workspace.state_dir / "qdrant")
    )
    index.maintain()
    return Injector(settings, index, clock=lambda: 1_800_000_000.0)


@pytest.fixture
def injector(settings: Settings, write_page: PageWriter) -> Iterator[Injector]:
    for slug, text in PAGES.items():
        write_page(slug, text)
    inj = make(settings)
    yield inj
    inj.close()


def test_card_holds_core_entity_and_similar_pages_with_their_lanes(injector: Injector) -> None:
    blocks = injector.assemble("is Sammy allergic to shellfish?")
    lanes = {s.slug: s.lanes for s in blocks.selected}
    assert lanes["prefs"][0] == "core"
    assert lanes["people/sam"][:2] == ("entity", "sim")
    assert blocks.memory.startswith("<memory>")
    assert '<page slug="people/sam" title="Sam"' in blocks.memory
    assert "allergic to shellfish" in blocks.memory
    assert [s.slug for s in blocks.selected][:2] == ["prefs", "people/sam"]


def test_imported_pages_on_the_card_are_marked(injector: Injector) -> None:
    blocks = injector.assemble("when is the train to Porto?")
    assert "imports/trip" in {s.slug for s in blocks.selected}
    assert 'source="import:chatgpt" trust="untrusted"' in blocks.memory


def test_hot_pages_carry_over_between_separate_injectors(
    injector: Injector, settings: Settings
) -> None:
    injector.assemble("tell me about Sam", conversation_id="c1")
    injector.close()
    later = make(settings)
    try:
        blocks = later.assemble("and what about the weather", conversation_id="c1")
        fresh = later.assemble("and what about the weather", conversation_id="other")
    finally:
        later.close()
    assert "hot" in {lane for s in blocks.selected for lane in s.lanes}
    assert "people/sam" in {s.slug for s in blocks.selected if "hot" in s.lanes}
    assert "hot" not in {lane for s in fresh.selected for lane in s.lanes}


def test_voice_front_door_replays_the_frozen_card_without_embedding(
    injector: Injector, settings: Settings
) -> None:
    first = injector.assemble("is Sam allergic to shellfish?", conversation_id="v")
    injector.close()
    voice = make(settings, NoQueries())
    try:
        replay = voice.assemble("anything new?", conversation_id="v", voice_front_door=True)
        unknown = voice.assemble("hello", conversation_id="nobody", voice_front_door=True)
    finally:
        voice.close()
    assert replay.memory == first.memory
    assert [s.slug for s in replay.selected] == [s.slug for s in first.selected]
    assert (unknown.memory, unknown.selected) == ("", [])


def test_co_selected_pages_learn_an_edge_that_survives_a_restart(
    injector: Injector, settings: Settings
) -> None:
    for _ in range(3):
        injector.assemble("Sam and Lisbon")
    injector.close()
    later = make(settings)
    try:
        blocks = later.assemble("what does Sammy carry")
    finally:
        later.close()
    edges = {s.slug: s.reasons.get("edges") for s in blocks.selected if "edges" in s.lanes}
    assert edges.get("places/lisbon") == "often chosen with people/sam"


def test_same_inputs_give_the_same_blocks(tmp_path: Path) -> None:
    outputs = []
    for name in ("one", "two"):
        root = tmp_path / name
        init_workspace(root)
        for slug, text in PAGES.items():
            path = root / "memory" / "concepts" / f"{slug}.md"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        inj = make(build_settings(root))
        try:
            outputs.append(inj.assemble("Sam in Lisbon drinking tea").as_json())
        finally:
            inj.close()
    assert outputs[0] == outputs[1]


def test_no_card_off_tier_v3_but_info_still_renders(workspace: Workspace) -> None:
    workspace.config_path.write_text("[memory.v3]\nlive = false\n")
    workspace.view_path("essentials.md").write_text("- Sam: shellfish allergy\n")
    inj = make(build_settings(workspace.root))
    try:
        blocks = inj.assemble("Sam")
    finally:
        inj.close()
    assert blocks.memory == "" and blocks.selected == []
    assert "shellfish allergy" in blocks.info
