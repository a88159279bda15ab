"""The embedding models a multi-workspace service shares: each loads once per
process (~400 MB for both) and serves every workspace configured with it.

The multilingual model is already one per process (`shared_use`); the
English one is kept here by its name and execution providers, so two
workspaces configured alike share it and one configured otherwise gets its
own. A model is stateless between calls, so sharing one leaks nothing; each
workspace's vectors live in its own store.
"""

from __future__ import annotations

import threading
from pathlib import Path

from substrate import Settings
from substrate.index import Embedder
from substrate.index.embedding import FastembedEmbedder


class SharedModels:
    def __init__(self, cache_dir: Path) -> None:
        self._cache_dir = cache_dir
        self._models: dict[tuple[str, tuple[str, ...]], FastembedEmbedder] = {}
        self._lock = threading.Lock()

    def dense(self, settings: Settings) -> Embedder:
        """The English model this workspace is configured with, loaded once."""
        key = (settings.tuning.embedding_model, tuple(settings.compute.providers or ()))
        with self._lock:
            if key not in self._models:
                self._models[key] = FastembedEmbedder(
                    key[0], self._cache_dir, providers=key[1] or None
                )
            return self._models[key]
