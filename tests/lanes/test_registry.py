"""The lane table (`substrate.config.lanes`) is the one place a lane is declared:
a lane added there is selected, quota'd, proposed and documented; every
consumer follows the table, none keeps its own list."""

from __future__ import annotations

from pathlib import Path

import pytest

import substrate.config.lanes as lane_table
from lanes import registry
from lanes.candidates import Candidate
from lanes.select import select
from service.settings_loader import build_settings
from substrate import Settings
from substrate.config import keys
from substrate.config.lanes import LANES, Lane, lane_order, quota_key
from substrate.config.template import CONFIG_TEMPLATE
from tests.conftest import PageWriter
from tests.injector.test_assemble import make

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_every_consumer_derives_from_the_table() -> None:
    names = [lane.name for lane in LANES]
    assert list(lane_order()) == names
    quota_keys = [k for k in keys.KEYS if k.table == keys.V3 and k.name.startswith("quota_")]
    assert [k.name for k in quota_keys] == [quota_key(n) for n in names]
    assert [k.default for k in quota_keys] == [lane.quota for lane in LANES]
    assert all(f"{quota_key(n)} =" in CONFIG_TEMPLATE for n in names)
    assert set(registry.PROPOSERS) >= set(names)
    assert lane_table.lane_table() in (DOCS / "read-path.md").read_text(), (
        "regenerate: python -c 'from substrate.config.lanes import lane_table; print(lane_table())'"
    )


def test_the_settings_carry_a_quota_for_every_lane(settings: Settings) -> None:
    assert set(settings.v3.quotas()) == set(lane_order())
    assert settings.v3.quota("fresh") == 0 and settings.v3.quota("sim") == 4


def test_a_lane_added_to_the_table_is_proposed_selected_and_shown(
    settings: Settings, write_page: PageWriter, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One line in the table (and its proposer) and the card carries the lane's pick,
    credited to it, with no other list to update."""
    added = Lane("pinned", 1, False, False, False, "the page the test pins")
    monkeypatch.setattr(lane_table, "LANES", (*LANES, added))

    def pinned(turn: registry.Turn, earlier: registry.Proposals) -> list[Candidate]:
        return [Candidate("notes/bees", "pinned", 1.0, "pinned by the test")]

    monkeypatch.setitem(registry.PROPOSERS, "pinned", pinned)
    write_page("notes/bees", "---\ntitle: Bees\n---\nThe hives sit by the south wall.")
    write_page("people/sam", "---\ntitle: Sam\n---\nSam is allergic to shellfish.")
    assert "pinned" in lane_order()
    injector = make(build_settings(settings.workspace.root))
    try:
        blocks = injector.assemble("is Sam allergic to shellfish?")
    finally:
        injector.close()
    lanes = {s.slug: s.lanes for s in blocks.selected}
    assert lanes["notes/bees"] == ("pinned",)
    assert 'slug="notes/bees"' in blocks.memory and 'lanes="pinned"' in blocks.memory


def test_a_lane_switched_off_by_its_quota_is_never_credited() -> None:
    proposals = {name: [Candidate(f"{name}/page", name, 1.0, "")] for name in lane_order()}
    quotas = {name: 1 for name in lane_order()} | {"fresh": 0}
    picked = select(proposals, quotas, total=20)
    assert {s.lane for s in picked} == set(lane_order()) - {"fresh"}
