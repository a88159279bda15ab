"""Tending on a served workspace is visible to the very next card and search
without re-embedding on the request: search follows the files (a forgotten
fact's words are not shown, a correction's are, a deleted page is gone) and
the worker re-embeds later, coalesced."""

from __future__ import annotations

import random

import pytest

from service.jobs import INDEX_LANE
from service.runtime import MAINTAIN, Runtime
from service.settings_loader import build_settings
from substrate import Workspace, remember
from substrate.consolidation import consolidate
from substrate.sessions import NewMessage
from tests.embedders import HashingEmbedder

THINGS = ["violin", "kayak", "sourdough", "chess", "pottery", "falconry", "origami", "tango"]
PEOPLE = ["Ines", "Tomasz", "Aiko", "Bongani", "Marisol", "Oskar"]


@pytest.fixture
def runtime(workspace: Workspace) -> Runtime:
    rt = Runtime(
        build_settings(workspace.root), embedder=HashingEmbedder(), multilingual=HashingEmbedder(48)
    )
    return rt


def _facts(rng: random.Random) -> list[str]:
    people = rng.sample(PEOPLE, 4)
    things = rng.sample(THINGS, 4)
    return [f"My friend {p} plays {t} every Sunday." for p, t in zip(people, things, strict=True)]


def _shown(runtime: Runtime, query: str) -> str:
    hits = runtime.memory.search(query, 10)
    return runtime.memory.card(query)["memory"] + "\n".join(h["excerpt"] for h in hits)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_forget_or_correct_is_shown_at_once_and_embedded_later(
    runtime: Runtime, seed: int
) -> None:
    rng = random.Random(seed)
    try:
        facts = _facts(rng)
        for fact in facts:
            remember(runtime.settings, fact)
        consolidate(runtime.settings)
        runtime.memory.maintain()
        embedded = runtime.search.store.count()
        gone, fixed, kept = facts[0], facts[1], facts[2:]
        runtime.memory.forget(gone)
        [fact] = [
            f
            for page in runtime.injector.page_index().entries
            for f in runtime.memory.facts(page)["facts"]
            if f["text"] == fixed
        ]
        new_thing = rng.choice([t for t in THINGS if t not in " ".join(facts)])
        corrected = fixed.rsplit(" plays ", 1)[0] + f" plays {new_thing} every Sunday."
        runtime.memory.correct(fact["id"], corrected)
        assert runtime.search.store.count() == embedded  # nothing embedded on the request
        assert runtime.queue.pending(MAINTAIN)  # the worker's, coalesced: one queued
        for query in (gone, fixed, "who plays what every Sunday"):
            shown = _shown(runtime, query)
            assert gone.split(" plays ")[1] not in shown.replace(new_thing, "")
        assert new_thing in _shown(runtime, fixed)
        for fact_text in kept:
            assert fact_text.split(" plays ")[1].split()[0] in _shown(runtime, fact_text)
        runtime.memory.maintain()  # the worker's turn: the same answers from the collection
        for query in (gone, fixed):
            assert gone.split(" plays ")[1].split()[0] not in _shown(runtime, query)
    finally:
        runtime.close()


def test_a_deleted_page_leaves_search_and_the_card_before_any_re_embedding(
    runtime: Runtime, workspace: Workspace
) -> None:
    try:
        for slug, text in [("hobbies/quilting", "Quilting on Thursdays with the guild.")]:
            path = workspace.concepts_dir / f"{slug}.md"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(f"---\ntitle: Quilting\n---\n{text}\n")
        runtime.memory.maintain()
        assert "Thursdays" in _shown(runtime, "quilting guild")
        runtime.memory.delete_page("hobbies/quilting")
        assert "Thursdays" not in _shown(runtime, "quilting guild")
        assert runtime.queue.pending(MAINTAIN)
    finally:
        runtime.close()


def test_a_forgotten_message_leaves_its_episode_before_any_re_embedding(
    runtime: Runtime,
) -> None:
    try:
        runtime.memory.sessions.append(
            "walk",
            [
                NewMessage("user", "I buried the spare key under the blue flowerpot.", True),
                NewMessage("assistant", "Noted: the flowerpot by the gate.", True),
            ],
            1.7e9,
        )
        runtime.memory.maintain()
        assert "spare key" in _shown(runtime, "where is the spare key flowerpot")
        [key, _] = [m.id for m in runtime.memory.sessions.messages("walk")]
        runtime.memory.forget_conversation(message_id=key)
        hits = runtime.memory.search("spare key flowerpot", 5, kind="episode")
        assert all("spare key" not in h["excerpt"] for h in hits)
        assert "spare key" not in _shown(runtime, "where is the spare key flowerpot")
        index = runtime.memory.index  # what reads stored chunks reads them as the log is now
        slugs = [s for s in index.store.slug_counts() if s.startswith("episode/")]
        vectors = index.embed_query("spare key flowerpot")
        reached = index.nearest_windows(vectors, slugs)
        assert reached and all("spare key" not in h.excerpt for h in reached)
        assert all("spare key" not in h.excerpt for h in index.whole_windows(reached))
    finally:
        runtime.close()


def test_the_index_lane_s_worker_is_what_re_embeds(runtime: Runtime) -> None:
    try:
        runtime.memory.maintain()
        runtime.reindex_soon()
        runtime.reindex_soon()
        job = runtime.queue.claim(lane=INDEX_LANE)
        assert job is not None and job.kind == MAINTAIN and job.payload == {"reason": "tending"}
        assert runtime.queue.claim(lane=INDEX_LANE) is None  # the two coalesced into one
    finally:
        runtime.close()
