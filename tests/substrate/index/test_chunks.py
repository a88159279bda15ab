from __future__ import annotations

from substrate.index.chunks import chunk_page


def count_words(texts: list[str]) -> list[int]:
    """A stand-in tokenizer: one token per word (the real one is tested with the model)."""
    return [len(t.split()) for t in texts]


def test_short_page_is_one_chunk_with_title_prefix() -> None:
    (chunk,) = chunk_page("Alice", "# Alice\nLikes tea.\nLives in Oslo.", count_words, 50)
    assert chunk.text == "Alice\n\nLikes tea.\nLives in Oslo."


def test_empty_page_still_has_a_title_chunk() -> None:
    assert [c.text for c in chunk_page("Empty", "", count_words, 50)] == ["Empty\n\n"]


def test_headings_start_new_chunks() -> None:
    chunks = chunk_page(
        "P", "intro line\n## Status\nall good\n## Decisions\nuse RRF", count_words, 50
    )
    assert [c.text for c in chunks] == [
        "P\n\nintro line",
        "P\n\n## Status\nall good",
        "P\n\n## Decisions\nuse RRF",
    ]
    assert [c.index for c in chunks] == [0, 1, 2]


def test_every_chunk_fits_the_budget_and_nothing_is_lost() -> None:
    body = "\n".join(f"line {i} " + "word " * (i % 7) for i in range(200))
    body += "\n" + "A very long sentence. " * 40 + "\n" + "unbroken " * 120 + "\nlast sentence here"
    chunks = chunk_page("Title", body, count_words, 32)
    assert all(count_words([c.text])[0] <= 32 + 1 for c in chunks)
    assert chunks[-1].text.endswith("last sentence here")
    joined = " ".join(c.text.removeprefix("Title\n\n") for c in chunks).split()
    assert joined == body.split()
