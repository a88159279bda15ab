"""Writer leases and the fence: a process that lost its workspace's lease
writes nothing, proved with real processes (SIGSTOP past the lease, a
takeover, SIGCONT)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from substrate import FencedError, LockHeldError, init_workspace, open_workspace
from substrate.safety.fencing import Holder, read_lease
from substrate.safety.safe_files import append_bytes, write_atomic

RUNS = int(os.environ.get("MEMORY_FENCING_RUNS", "2"))


def test_a_live_lease_is_not_taken_and_an_expired_one_is_taken_with_the_next_generation(
    tmp_path: Path,
) -> None:
    init_workspace(tmp_path / "w")
    ws = open_workspace(tmp_path / "w")
    first, second = Holder("a", "http://a", 0.5), Holder("b", "http://b", 0.5)
    assert first.acquire(ws.root, ws.state_dir).owner == "a"
    assert second.acquire(ws.root, ws.state_dir).owner == "a"  # live: not taken
    time.sleep(0.6)
    taken = second.acquire(ws.root, ws.state_dir)
    assert (taken.owner, taken.generation) == ("b", 2)
    with pytest.raises(FencedError, match="took the workspace over"), first.writing(ws.root):
        pass  # (one process, one holder: the writes themselves are the next test's)
    assert not first.renew(ws.root) and not first.holds(ws.root)
    second.release(ws.root)  # given up: the next one need not wait
    again = first.acquire(ws.root, ws.state_dir)
    assert (again.owner, again.generation) == ("a", 3)
    write_atomic(tmp_path / "elsewhere.txt", "outside any workspace: never fenced")
    write_atomic(ws.concepts_dir / "x.md", "by a, the owner again")
    first.release(ws.root)


OWNER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from substrate import FencedError, open_workspace
    from substrate.safety.fencing import Holder
    from substrate.safety.safe_files import append_bytes, write_atomic
    ws = open_workspace(Path(sys.argv[1]))
    holder = Holder("first", "http://first", float(sys.argv[2]))
    holder.acquire(ws.root, ws.state_dir)
    n = 0
    while True:
        try:
            append_bytes(ws.root / "memory" / "log.txt", f"first {n}\\n".encode())
            write_atomic(ws.concepts_dir / "page.md", f"first {n}")
        except FencedError:
            print("refused", n, flush=True)
            sys.exit(0)
        print("wrote", n, flush=True)
        n += 1
        time.sleep(0.01)
    """
)


@pytest.mark.parametrize("run", range(RUNS))
def test_a_paused_owner_past_its_lease_cannot_write_after_a_takeover(
    tmp_path: Path, run: int
) -> None:
    init_workspace(tmp_path / "w")
    ws = open_workspace(tmp_path / "w")
    lease_s = 0.5
    owner = subprocess.Popen(
        [sys.executable, "-c", OWNER, str(ws.root), str(lease_s)],
        stdout=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).resolve().parents[3],
    )
    assert owner.stdout is not None
    second = Holder("second", "http://second", 5.0)
    try:
        while "wrote 3" not in owner.stdout.readline():
            pass
        for _ in range(20):
            owner.send_signal(signal.SIGSTOP)
            time.sleep(lease_s + 0.2)  # past its lease (it never renews)
            try:
                taken = second.acquire(ws.root, ws.state_dir, timeout_s=0.5)
                break
            except LockHeldError:  # paused inside a write: wake it, pause it again
                owner.send_signal(signal.SIGCONT)
                owner.stdout.readline()
        assert (taken.owner, taken.generation) == ("second", 2)
        append_bytes(ws.root / "memory" / "log.txt", b"second 0\n")
        write_atomic(ws.concepts_dir / "page.md", "second 0")
        owner.send_signal(signal.SIGCONT)
        out, _ = owner.communicate(timeout=60)
    finally:
        if owner.poll() is None:
            owner.kill()
    assert "refused" in out  # its first write after waking was refused
    lines = (ws.root / "memory" / "log.txt").read_text().splitlines()
    firsts = [line for line in lines if line.startswith("first")]
    assert lines[-1] == "second 0"  # nothing of the first owner's after the takeover
    assert firsts == [f"first {n}" for n in range(len(firsts))]  # none lost or doubled
    assert (ws.concepts_dir / "page.md").read_text() == "second 0"
    assert read_lease(ws.state_dir) == taken
    second.release(ws.root)
