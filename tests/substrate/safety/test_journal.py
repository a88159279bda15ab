"""A change across files lands whole: all of it, or (after an error) none of it,
and a kill at any point is finished by the next writer."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from substrate.errors import NotRegularFileError
from substrate.safety import journal, read_text_snapshot

KILLED_BETWEEN_STEPS = """
import os, sys, time
from pathlib import Path
from substrate.safety import journal, read_text_snapshot

root = Path(sys.argv[1])
real_open = os.open
def pausing(path, flags, *args, **kwargs):
    if str(path).endswith("log.md") and flags & os.O_APPEND:
        print("BETWEEN", flush=True)
        time.sleep(60)
    return real_open(path, flags, *args, **kwargs)
os.open = pausing
_, snap = read_text_snapshot(root / "state.json")
journal.commit(root / ".j", [
    journal.Replace(root / "state.json", b'{"n": 2}', snap),
    journal.Append(root / "log.md", b"- second\\n"),
])
"""


def files(root: Path) -> tuple[str, str]:
    return (root / "state.json").read_text(), (root / "log.md").read_text()


def plan(root: Path, n: int) -> list[journal.Step]:
    _, snap = read_text_snapshot(root / "state.json")
    return [
        journal.Replace(root / "state.json", f'{{"n": {n}}}'.encode(), snap),
        journal.Append(root / "log.md", f"- entry {n}\n".encode()),
    ]


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "state.json").write_text('{"n": 1}')
    (tmp_path / "log.md").write_text("- first\n")
    return tmp_path


def test_a_commit_lands_every_step_and_leaves_no_journal(root: Path) -> None:
    journal.commit(root / ".j", plan(root, 2))
    assert files(root) == ('{"n": 2}', "- first\n- entry 2\n")
    assert not (root / ".j").exists()


def test_an_error_in_a_later_step_undoes_the_earlier_ones(root: Path) -> None:
    steps = plan(root, 2)
    (root / "log.md").unlink()
    (root / "log.md").mkdir()  # the append cannot land
    with pytest.raises(NotRegularFileError):
        journal.commit(root / ".j", steps)
    assert (root / "state.json").read_text() == '{"n": 1}'
    assert not (root / ".j").exists()


def test_a_kill_between_the_steps_is_finished_by_the_next_writer(root: Path) -> None:
    with subprocess.Popen(
        [sys.executable, "-c", KILLED_BETWEEN_STEPS, str(root)], stdout=subprocess.PIPE, text=True
    ) as proc:
        assert proc.stdout is not None and proc.stdout.readline() == "BETWEEN\n"
        proc.send_signal(signal.SIGKILL)
    assert files(root) == ('{"n": 2}', "- first\n")  # half done
    assert journal.pending(root / ".j")
    assert journal.recover(root / ".j") == []
    assert files(root) == ('{"n": 2}', "- first\n- second\n")
    assert journal.recover(root / ".j") == []  # nothing left to do, nothing done twice
    assert files(root) == ('{"n": 2}', "- first\n- second\n")


def test_a_torn_append_is_completed_never_doubled(root: Path) -> None:
    record = b"- a long entry that was cut by the kill\n"
    size = (root / "log.md").stat().st_size
    doc = {
        "version": 1,
        "steps": [
            {
                "kind": "append",
                "path": str(root / "log.md"),
                "size": size,
                "data": __import__("base64").b64encode(record).decode(),
            }
        ],
    }
    (root / ".j").write_text(json.dumps(doc))
    with open(root / "log.md", "ab") as fh:
        fh.write(record[:10])
    assert journal.recover(root / ".j") == []
    assert (root / "log.md").read_bytes() == b"- first\n" + record


def test_recovery_leaves_a_file_changed_since_alone(root: Path) -> None:
    steps = plan(root, 2)
    (root / ".j").write_bytes(b"")  # make sure a stale empty journal is dropped cleanly
    assert journal.recover(root / ".j") != []
    journal._write_journal(root / ".j", [journal._plan(s) for s in steps])
    (root / "state.json").write_text('{"n": "edited by hand"}')
    problems = journal.recover(root / ".j")
    assert len(problems) == 1 and "state.json" in problems[0]
    assert files(root) == ('{"n": "edited by hand"}', "- first\n- entry 2\n")
