"""A short page's whole-page multilingual vector, blended into its chunks' own.

A chunk of a short page loses the rest of its paragraph: MiniLM's tokenizer
cuts a 600-character Arabic paragraph in three, and each third alone is a
weaker match for a question about the paragraph. Each chunk of a page cut into
several chunks, yet within `multilingual_page_context` of the multilingual
model's tokens, gets `dense_ml` = its own vector plus the page's. A long page is
left alone: its vector averages many topics (a conversation session) and blurs
every chunk. Measured (docs/search.md): XQuAD en→ar hit@5 .900 → .918, LoCoMo
unchanged at session granularity and R@1 +.002 at window.
"""

from __future__ import annotations

import numpy as np

from substrate.config.cpus import usable_cpus
from substrate.index.bulk import all_cores
from substrate.index.chunks import Chunk, page_text
from substrate.index.embedding import Embedder, Vectors

BATCH = 64


def page_context(
    model: Embedder, pages: dict[str, tuple[str, list[Chunk]]], limit: int
) -> dict[str, Vectors]:
    """The multilingual vector of each whole page that qualifies (module doc). The
    model runs alone here, so on every core."""
    if limit <= 0:
        return {}
    whole = {
        slug: page_text(title, chunks) for slug, (title, chunks) in pages.items() if len(chunks) > 1
    }
    slugs = list(whole)
    sizes = model.count_tokens([whole[slug] for slug in slugs])
    fitting = [slug for slug, n in zip(slugs, sizes, strict=True) if n <= limit]
    vectors: dict[str, Vectors] = {}
    with all_cores(model, usable_cpus()):
        for start in range(0, len(fitting), BATCH):
            batch = fitting[start : start + BATCH]
            embedded = model.embed_documents([whole[slug] for slug in batch])
            vectors.update(zip(batch, embedded, strict=True))
    return vectors


def with_context(chunks: Vectors, pages: list[Vectors | None]) -> Vectors:
    """Each chunk's vector plus its page's where it has one, back to unit length."""
    out = np.array(chunks, dtype=np.float32)
    for i, page in enumerate(pages):
        if page is not None:
            blended = out[i] + page
            out[i] = blended / max(float(np.linalg.norm(blended)), 1e-12)
    return out
