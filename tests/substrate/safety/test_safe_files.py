from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from substrate import (
    NotRegularFileError,
    StaleWriteError,
    TooLargeError,
    read_text_snapshot,
    write_atomic,
)
from substrate.errors import LockHeldError
from substrate.safety import (
    PlannedWrite,
    hold_lock,
    read_bytes_snapshot,
    read_regular_file,
    sweep_stale_temps,
    write_many_atomic,
)
from tests.races import before_exchange, save_by_rename


def test_write_creates_folders_and_leaves_no_temp_files(tmp_path: Path) -> None:
    target = tmp_path / "deep" / "file.md"
    write_atomic(target, "hello")
    assert target.read_text() == "hello"
    assert [p.name for p in target.parent.iterdir()] == ["file.md"]


def test_write_against_unchanged_snapshot_succeeds(tmp_path: Path) -> None:
    target = tmp_path / "f.md"
    target.write_text("v1")
    _, snap = read_text_snapshot(target)
    write_atomic(target, "v2", expected=snap)
    assert target.read_text() == "v2"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda p: p.write_text("edited elsewhere"), "changed on disk since it was read"),
        (lambda p: p.unlink(), "deleted on disk since it was read"),
    ],
)
def test_drifted_file_is_kept_and_write_refused(tmp_path: Path, change, message: str) -> None:  # type: ignore[no-untyped-def]
    target = tmp_path / "f.md"
    target.write_text("v1")
    _, snap = read_text_snapshot(target)
    change(target)
    before = target.read_bytes() if target.exists() else None
    with pytest.raises(StaleWriteError, match=message):
        write_atomic(target, "mine", expected=snap)
    assert (target.read_bytes() if target.exists() else None) == before
    assert list(tmp_path.iterdir()) == ([target] if before is not None else [])


def test_file_created_after_an_absent_read_is_drift(tmp_path: Path) -> None:
    target = tmp_path / "new.md"
    _, snap = read_text_snapshot(target)
    target.write_text("someone else")
    with pytest.raises(StaleWriteError, match="created on disk"):
        write_atomic(target, "mine", expected=snap)


def test_touch_without_content_change_is_not_drift(tmp_path: Path) -> None:
    import os

    target = tmp_path / "f.md"
    target.write_text("same")
    _, snap = read_text_snapshot(target)
    os.utime(target, (1, 1))
    write_atomic(target, "new", expected=snap)
    assert target.read_text() == "new"


def test_second_lock_holder_times_out_with_a_clear_error(tmp_path: Path) -> None:
    lock = tmp_path / "x.lock"
    with (
        hold_lock(lock),
        pytest.raises(LockHeldError, match="holds the buffer lock"),
        hold_lock(lock, timeout_s=0.1, purpose="buffer"),
    ):
        pass
    with hold_lock(lock, timeout_s=0.1):
        pass


def test_batch_write_lands_every_good_write_and_fails_bad_ones_alone(tmp_path: Path) -> None:
    (tmp_path / "blocker").write_text("a file where a folder should be")
    drifted = tmp_path / "drifted.md"
    drifted.write_text("v1")
    _, seen = read_bytes_snapshot(drifted)
    drifted.write_text("v2 by someone else")
    writes = [
        PlannedWrite(tmp_path / "a" / "one.md", b"one", None),
        PlannedWrite(tmp_path / "blocker" / "two.md", b"two", None),
        PlannedWrite(drifted, b"mine", seen),
        PlannedWrite(tmp_path / "a" / "three.md", b"three", None),
    ]
    errors = write_many_atomic(writes)
    assert errors[0] is None and errors[3] is None
    assert isinstance(errors[1], OSError)
    assert isinstance(errors[2], StaleWriteError)
    assert (tmp_path / "a" / "one.md").read_bytes() == b"one"
    assert (tmp_path / "a" / "three.md").read_bytes() == b"three"
    assert drifted.read_text() == "v2 by someone else"
    assert not [p for p in tmp_path.rglob("*.tmp")]


def test_threads_of_one_process_queue_for_a_lock_instead_of_timing_out(tmp_path: Path) -> None:
    lock = tmp_path / "x.lock"
    held: list[int] = []

    def work(i: int) -> None:
        with hold_lock(lock, timeout_s=0.1):  # shorter than the queue ahead of most threads
            held.append(i)
            time.sleep(0.02)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(held) == list(range(16))


# -- the window between the drift check and the exchange -----------------------


def test_an_in_place_edit_between_check_and_swap_is_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An editor writes the file after our drift check but before the exchange:
    the exchange takes the edited file, the look at it sees the edit, and the
    two are exchanged back."""
    target = tmp_path / "page.md"
    target.write_text("v1")
    _, snap = read_text_snapshot(target)
    ran = before_exchange(monkeypatch, target, lambda: target.write_text("hand edit"))
    with pytest.raises(StaleWriteError):
        write_atomic(target, "ours", expected=snap)
    assert ran and target.read_text() == "hand edit"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["page.md"]


def test_an_editor_saving_a_new_file_during_the_swap_wins(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "page.md"
    target.write_text("v1")
    _, snap = read_text_snapshot(target)
    before_exchange(monkeypatch, target, lambda: save_by_rename(target, "saved by the editor"))
    with pytest.raises(StaleWriteError):
        write_atomic(target, "ours", expected=snap)
    assert target.read_text() == "saved by the editor"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["page.md"]


def test_a_second_save_during_the_swap_back_is_what_stays(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two saves: one before our exchange, one between it and the exchange back.
    The newest file is the one left at the path."""
    target = tmp_path / "page.md"
    target.write_text("v1")
    _, snap = read_text_snapshot(target)
    saves = iter(["first save", "second save"])
    before_exchange(monkeypatch, target, lambda: save_by_rename(target, next(saves)), times=2)
    with pytest.raises(StaleWriteError):
        write_atomic(target, "ours", expected=snap)
    assert target.read_text() == "second save"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["page.md"]


def test_creating_a_file_never_clobbers_one_made_meanwhile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "new.md"
    _, snap = read_text_snapshot(target)
    real_link = os.link

    def create_then_link(src: Any, dst: Any) -> None:
        if Path(dst) == target:
            target.write_text("someone else's")
        real_link(src, dst)

    monkeypatch.setattr(os, "link", create_then_link)
    with pytest.raises(StaleWriteError, match="created on disk"):
        write_atomic(target, "ours", expected=snap)
    monkeypatch.undo()
    assert target.read_text() == "someone else's"


def test_readers_never_see_the_file_missing_and_never_make_a_writer_fail(
    tmp_path: Path,
) -> None:
    """Writers replace the file drift-aware, back to back, while readers read it
    without pause: every read finds the file whole, every write lands."""
    target = tmp_path / "buffer.md"
    target.write_text("0\n" * 100)
    stop = threading.Event()
    seen: list[str] = []

    def read_forever() -> None:
        while not stop.is_set():
            text, snap = read_text_snapshot(target)
            seen.append("missing" if not snap.exists else ("ok" if text.endswith("\n") else "torn"))

    readers = [threading.Thread(target=read_forever) for _ in range(4)]
    for thread in readers:
        thread.start()
    try:
        for i in range(300):
            _, snap = read_text_snapshot(target)
            write_atomic(target, f"{i}\n" * 100, expected=snap)
    finally:
        stop.set()
        for thread in readers:
            thread.join()
    assert seen and set(seen) == {"ok"}
    assert target.read_text() == "299\n" * 100


def test_an_unraced_write_replaces_the_file_and_leaves_nothing_behind(tmp_path: Path) -> None:
    target = tmp_path / "page.md"
    target.write_text("v1")
    _, snap = read_text_snapshot(target)
    write_atomic(target, "v2", expected=snap)
    assert target.read_text() == "v2"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["page.md"]


# -- orphaned temp files ------------------------------------------------------


def test_stale_temp_files_of_our_naming_are_swept(tmp_path: Path) -> None:
    old = tmp_path / ".page.md.ab12cd_3.tmp"
    aside = tmp_path / ".page.md.0123456789abcdef.old.tmp"
    young = tmp_path / ".page.md.zz99zz_9.tmp"
    theirs = tmp_path / ".editor-swap.tmp"
    for path in (old, aside, young, theirs, tmp_path / "page.md"):
        path.write_text("x")
    for path in (old, aside, theirs):
        os.utime(path, (time.time() - 3600, time.time() - 3600))
    assert sweep_stale_temps([tmp_path]) == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [young.name, theirs.name, "page.md"]
    )


# -- bounded reads of regular files -------------------------------------------


def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "x.md"
    os.mkfifo(fifo)
    with pytest.raises(NotRegularFileError, match="not a regular file \\(a FIFO\\)"):
        read_regular_file(fifo, 1024)


def test_a_device_is_refused(tmp_path: Path) -> None:
    with pytest.raises(NotRegularFileError, match="a character device"):
        read_regular_file(Path("/dev/zero"), 1024)


def test_a_symbolic_link_is_never_followed(tmp_path: Path) -> None:
    """A link could point out of the workspace (a secret, /etc/hostname) or at a
    device: it is refused whatever it points at."""
    secret = tmp_path / "outside" / "secret.txt"
    secret.parent.mkdir()
    secret.write_text("s3cret")
    for name, to in (("page.md", secret), ("zero.md", Path("/dev/zero"))):
        (tmp_path / name).symlink_to(to)
        with pytest.raises(NotRegularFileError, match="symbolic link"):
            read_regular_file(tmp_path / name, 1024)
        with pytest.raises(NotRegularFileError, match="symbolic link"):
            read_text_snapshot(tmp_path / name)


def test_a_file_over_the_cap_is_refused_before_it_is_read(tmp_path: Path) -> None:
    big = tmp_path / "big.md"
    big.write_bytes(b"a" * 2000)
    with pytest.raises(TooLargeError, match="2000 bytes, over the cap of 1000"):
        read_regular_file(big, 1000)
    assert read_regular_file(big, 2000) == b"a" * 2000
