from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from substrate import StaleWriteError, read_text_snapshot, write_atomic
from substrate.errors import LockHeldError
from substrate.safety import PlannedWrite, hold_lock, read_bytes_snapshot, write_many_atomic


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
