from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from typing import Any

import pytest

from substrate import Settings, remember
from substrate.index import EdgeStore, Hit, SearchIndex
from tests.embedders import HashingEmbedder

DAY = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)


@pytest.fixture
def index(settings: Settings) -> Iterator[SearchIndex]:
    search = SearchIndex(
        settings,
        HashingEmbedder(),
        EdgeStore(settings.workspace.state_dir / "qdrant"),
        HashingEmbedder(48),
    )
    try:
        yield search
    finally:
        search.store.close()


@pytest.fixture
def say(settings: Settings) -> Callable[..., str]:
    """Remember a fact on DAY (plus `minute` minutes); returns its entry id."""

    def add(text: str, minute: int = 0, hints: list[str] | None = None) -> str:
        return remember(settings, text, hints, now=DAY.replace(minute=minute % 60)).id

    return add


class MidRun:
    """A search index that does something once, during the run's search step: the
    moment a concurrent `remember` or a hand edit would land."""

    def __init__(self, inner: SearchIndex, action: Callable[[], Any]) -> None:
        self._inner = inner
        self._action: Callable[[], Any] | None = action

    def search(self, query: str, k: int = 10, **kwargs: Any) -> list[Hit]:
        if self._action is not None:
            action, self._action = self._action, None
            action()
        return self._inner.search(query, k, **kwargs)

    def prefetch(self, queries: list[str]) -> None:
        self._inner.prefetch(queries)
