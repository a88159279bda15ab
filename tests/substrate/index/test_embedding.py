from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from substrate import Settings
from substrate.errors import ConfigError, StoreUnavailableError
from substrate.index import EdgeStore, SearchIndex
from substrate.index.chunks import chunk_page
from substrate.index.embedding import FastembedEmbedder, resolve_model
from tests.conftest import PageWriter
from tests.embedders import HashingEmbedder


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FastembedEmbedder]:
    yield FastembedEmbedder("all-MiniLM-L6-v2-int8", tmp_path_factory.mktemp("cache"))


@pytest.mark.slow
def test_bundled_model_loads_offline_with_a_stable_identity(model: FastembedEmbedder) -> None:
    assert model.identity == "fastembed:all-MiniLM-L6-v2-int8;dim=384;sha256=8199be6f699a395f"
    vectors = model.embed_documents(
        ["Sam is allergic to shellfish.", "The train to Porto leaves at noon."]
    )
    assert vectors.shape == (2, 384)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)
    query = model.embed_query("what food allergy does Sam have")
    assert float(query @ vectors[0]) > float(query @ vectors[1]) + 0.2


@pytest.mark.slow
def test_our_session_gives_fastembeds_vectors_without_spinning_threads(
    model: FastembedEmbedder, tmp_path: Path
) -> None:
    from fastembed import TextEmbedding

    texts = ["Sam is allergic to shellfish.", "The train to Porto leaves at noon, " * 20]
    ours = model.embed_documents(texts)
    folder = resolve_model("all-MiniLM-L6-v2-int8", tmp_path).folder
    plain = TextEmbedding("local/all-MiniLM-L6-v2-int8", specific_model_path=str(folder))
    theirs = np.asarray(list(plain.embed(texts)), dtype=np.float32)
    assert np.allclose(ours, theirs, atol=1e-5)
    options = model._load().model.model.get_session_options()
    assert options.get_session_config_entry("session.intra_op.allow_spinning") == "0"


@pytest.mark.slow
def test_real_tokenizer_keeps_every_chunk_inside_the_model_window(model: FastembedEmbedder) -> None:
    body = "\n".join(
        f"Paragraph {i}: " + "the quarterly roadmap review covers latency budgets " * 9
        for i in range(30)
    )
    chunks = chunk_page("Roadmap", body, model.count_tokens, model.max_tokens)
    assert len(chunks) > 5
    assert max(model.count_tokens([c.text for c in chunks])) + 2 <= 256  # + [CLS] and [SEP]


@pytest.mark.slow
def test_sentence_at_the_end_of_a_long_page_is_findable(
    model: FastembedEmbedder, settings: Settings, write_page: PageWriter
) -> None:
    filler = "\n".join(
        f"Line {i} about garden maintenance, pruning and watering schedules." for i in range(120)
    )
    write_page(
        "long", f"# Garden log\n{filler}\nThe spare house key is hidden under the blue flowerpot."
    )
    write_page("badge", "# Keys\nThe office badge lives in the top drawer.")
    write_page("car", "# Car\nThe car is serviced every spring at the garage on Rua Nova.")
    write_page("wifi", "# Wifi\nThe router is in the hallway cupboard.")
    index = SearchIndex(settings, model, EdgeStore(settings.workspace.state_dir / "qdrant"))
    index.maintain()
    hits = index.search("where is the spare house key hidden", k=2)
    hit = next(h for h in hits if h.slug == "long")
    assert "hidden under the blue flowerpot" in hit.excerpt
    assert len(hit.excerpt) <= 402
    index.store.close()


def test_unknown_model_name_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="neither the bundled"):
        resolve_model("no-such-model", tmp_path)


def test_local_folder_without_a_model_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"no model\.onnx"):
        resolve_model(f"path:{tmp_path}", tmp_path)


def test_hashing_embedder_is_deterministic_and_normalised() -> None:
    embedder = HashingEmbedder(dim=16)
    a, b = embedder.embed_documents(["green tea", "green tea"])
    assert np.array_equal(a, b)
    assert float(np.linalg.norm(a)) == pytest.approx(1.0)


def test_clip_cuts_only_what_is_over_the_window() -> None:
    from substrate.index.embedding import clip

    assert clip(["short", "x" * 10], 8) == ["short", "x" * 8]


def test_an_index_refuses_to_write_on_a_nearly_full_disk(tmp_path: Path) -> None:
    from substrate.index.qdrant_edge import check_free_space

    check_free_space(tmp_path, needed=1)
    with pytest.raises(StoreUnavailableError, match="MiB free on the disk"):
        check_free_space(tmp_path, needed=1 << 62)
