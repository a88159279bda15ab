"""One fact that cannot be filed never stops the rest: slugs and hints are
checked as wholes where they come in, and a fact whose own filing fails is
set aside (held, its reason kept, `doctor` names it) while the rest are
filed; a failure that is not the fact's (a full disk) stops the run as before."""

from __future__ import annotations

import errno
import random
from typing import Any

import pytest

from service.doctor_memory import memory_problems
from substrate import InvalidInputError, Settings, read_buffer, remember
from substrate.consolidation import consolidate_all
from substrate.consolidation.set_aside import set_aside_reasons
from substrate.consolidation.writer import Writer
from substrate.errors import DiskFullError
from substrate.intake import release_entries
from substrate.pages import load_page_index, slug_problem, validate_slug
from substrate.pages.slugs import MAX_DEPTH, MAX_SLUG_BYTES


def generated_slugs(rng: random.Random) -> list[tuple[str, bool]]:
    """(slug, whether it is fine): segments of valid lengths in counts and sizes
    around the whole-length and depth bounds."""
    out = []
    for _ in range(60):
        depth = rng.randint(1, MAX_DEPTH + 30)
        size = rng.randint(1, 200)
        slug = "/".join(rng.choice("abcdé") * size for _ in range(depth))
        whole = len(slug.encode()) <= MAX_SLUG_BYTES and depth <= MAX_DEPTH
        fine = whole and all(len(part.encode()) <= 200 for part in slug.split("/"))
        out.append((slug, fine))
    out.append(("/".join(["x"] * 1000), False))  # once ran recursion out
    out.append(("/".join(["a" * 200] * 25), False))  # once failed every filing run
    return out


def test_slugs_and_hints_are_bounded_as_wholes(settings: Settings) -> None:
    for slug, fine in generated_slugs(random.Random(61)):
        assert (slug_problem(slug) is None) == fine, slug[:80]
        if not fine:
            with pytest.raises(InvalidInputError, match=r"in all|folders deep|segment"):
                validate_slug(slug)
            with pytest.raises(InvalidInputError):
                remember(settings, "Sam keeps bees.", [slug])


def test_an_old_entry_with_an_over_long_hint_is_filed_without_it(settings: Settings) -> None:
    hint = "/".join(["a" * 200] * 25)
    buffer = settings.workspace.memory_dir / "buffer.md"
    remember(settings, "My sister Ines keeps bees in Leith.")
    buffer.write_text(buffer.read_text() + f"- [2026-12-01 10:00] Sam plays chess. [[{hint}]]\n")
    done = consolidate_all(settings)  # no run fails on the hint
    assert done.set_aside == [] and done.count("filed") + done.count("merged") >= 1
    assert all(e.held for e in read_buffer(settings))  # what stays is held for review alone


def test_a_fact_whose_own_filing_fails_is_set_aside_and_the_rest_are_filed(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = Writer.apply

    def refusing(self: Writer, plan: Any, *, dry_run: bool) -> Any:
        if any("Xylophanta" in p.entry.text for p in plan.placements):
            raise OSError(errno.ENAMETOOLONG, "File name too long")
        return real(self, plan, dry_run=dry_run)

    monkeypatch.setattr(Writer, "apply", refusing)
    ids = [remember(settings, f"My colleague Person{n} keeps {n} bees.").id for n in range(3)]
    bad = remember(settings, "My neighbour's parrot is called Xylophanta.").id
    ids += [remember(settings, f"My cousin Relative{n} rows on Sundays.").id for n in range(3)]
    done = consolidate_all(settings)
    assert done.set_aside == [bad]
    assert [e.id for e in read_buffer(settings)] == [bad]  # the rest were filed
    assert "File name too long" in set_aside_reasons(settings)[bad]["why"]
    kinds = [p.kind for p in memory_problems(settings, load_page_index(settings.workspace))]
    assert kinds == ["set_aside_fact"]
    again = consolidate_all(settings)  # a set-aside fact does not fail the next runs
    assert again.set_aside == [] and [e.id for e in read_buffer(settings)] == [bad]
    monkeypatch.setattr(Writer, "apply", real)
    release_entries(settings, [bad])
    consolidate_all(settings)
    assert read_buffer(settings) == []


def test_a_full_disk_is_not_a_fact_s_fault(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    def full(*args: Any, **kwargs: Any) -> Any:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(Writer, "apply", full)
    for n in range(3):
        remember(settings, f"My colleague Person{n} keeps bees.")
    with pytest.raises((OSError, DiskFullError)):
        consolidate_all(settings)
    assert set_aside_reasons(settings) == {} and len(read_buffer(settings)) == 3
