"""Filing never runs a model while it holds the consolidation lock: the searches
of a run are embedded before the lock, so a forget or a page edit waiting for
the lock never waits behind an embedding."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest

import substrate.consolidation.run as run_module
from substrate import SearchIndex, Settings
from substrate.consolidation import consolidate_all
from substrate.index.embedding import Vectors
from tests.embedders import HashingEmbedder


class Watched(HashingEmbedder):
    """Records whether the consolidation lock was held at each model call."""

    def __init__(self, held: list[bool]) -> None:
        super().__init__()
        self.calls: list[bool] = []
        self._held = held

    def embed_query(self, text: str) -> Vectors:
        self.calls.append(self._held[0])
        return super().embed_query(text)

    def embed_queries(self, texts: Any) -> Vectors:
        self.calls.append(self._held[0])
        return super().embed_queries(texts)


@pytest.mark.parametrize("facts", [3, 40])
def test_filing_embeds_its_searches_before_the_lock(
    settings: Settings,
    index: SearchIndex,
    say: Callable[..., str],
    monkeypatch: pytest.MonkeyPatch,
    facts: int,
) -> None:
    held = [False]
    real = run_module.hold_lock  # type: ignore[attr-defined]

    @contextmanager
    def watched_lock(*args: Any, **kwargs: Any) -> Iterator[None]:
        with real(*args, **kwargs):
            held[0] = True
            try:
                yield
            finally:
                held[0] = False

    monkeypatch.setattr(run_module, "hold_lock", watched_lock)
    model = Watched(held)
    index._embedders = {"dense": model}  # the one signal, watched
    for n in range(facts):
        say(f"My colleague Person{n} collects stamps from country {n}.", minute=n)
    say("I moved to Leith last spring.", minute=facts + 1)
    done = consolidate_all(settings, search=index)
    assert done.entries  # it filed
    assert model.calls and not any(model.calls)  # every model call outside the lock
