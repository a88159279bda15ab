"""The vectors of recently embedded chunk texts, so a page that changed by one fact
re-embeds one chunk, not all of them.

Consolidation re-indexes after every run, and a page that gained a fact is a
changed page: every chunk of it used to go through both models again, though
all but the last one or two read exactly as before. A chunk's dense vectors
depend only on its text and the model (the page-level blend of `page_context`
is applied after), so they are kept here by text, for the models of this
index, at most `capacity` texts, least recently used first out (about 3.5 KB a
text for MiniLM and USE). Held in memory for the life of the process: a fresh
process starts empty and embeds as before.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator

import numpy as np

from substrate.index.bulk import embed_batches
from substrate.index.embedding import Embedder, Vectors

CAPACITY = 4096


class ChunkVectors:
    def __init__(self, capacity: int = CAPACITY) -> None:
        self._capacity = capacity
        self._kept: OrderedDict[str, dict[str, np.ndarray]] = OrderedDict()

    def embed(
        self,
        embedders: dict[str, Embedder],
        batches: list[list[str]],
        cpus: int,
        concurrent: bool,
    ) -> Iterator[dict[str, Vectors]]:
        """Each batch's vectors by model, as `embed_batches` answers, embedding only
        the texts not kept; a job none of whose texts is kept streams through
        `embed_batches` as before."""
        names = list(embedders)
        missing = list(dict.fromkeys(t for b in batches for t in b if t not in self._kept))
        if len(missing) == sum(len(b) for b in batches):
            streamed = embed_batches(embedders, batches, cpus, concurrent)
            for batch, vectors in zip(batches, streamed, strict=True):
                self._keep(batch, vectors)
                yield vectors
            return
        size = max((len(b) for b in batches), default=1)
        fresh = [missing[i : i + size] for i in range(0, len(missing), size)]
        rows: dict[str, dict[str, np.ndarray]] = {}
        for batch, vectors in zip(
            fresh, embed_batches(embedders, fresh, cpus, concurrent), strict=True
        ):
            rows.update(self._keep(batch, vectors))
        for batch in batches:
            found = [rows[t] if t in rows else self._take(t) for t in batch]
            yield {name: np.stack([row[name] for row in found]) for name in names}

    def _keep(
        self, texts: list[str], vectors: dict[str, Vectors]
    ) -> dict[str, dict[str, np.ndarray]]:
        """Keep each text's vectors (the oldest go past `capacity`); the rows kept."""
        arrays = {name: np.asarray(v, dtype=np.float32) for name, v in vectors.items()}
        rows = {t: {name: a[i] for name, a in arrays.items()} for i, t in enumerate(texts)}
        if self._capacity > 0:
            for text, row in rows.items():
                self._kept[text] = row
                self._kept.move_to_end(text)
            while len(self._kept) > self._capacity:
                self._kept.popitem(last=False)
        return rows

    def _take(self, text: str) -> dict[str, np.ndarray]:
        row = self._kept[text]
        self._kept.move_to_end(text)
        return row
