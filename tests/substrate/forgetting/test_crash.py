"""kill -9 inside a forget, at every step: a forked child runs the forget and
kills itself with SIGKILL at its Nth file step (a rename, link, unlink or
fsync), for every N the forget takes. After each kill:

- the transcript change and its tombstone are both there or both absent
  (once the next writer of the log rolled its journal forward);
- the next forget (or a purge, or doctor --fix) finishes the order: nothing
  derived only from the forgotten is left, no forgotten word is in any file
  under `memory/`, every fact is in exactly one place, no journal or order
  is left behind.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from service.settings_loader import build_settings
from substrate import NotFoundError, Settings, init_workspace, read_buffer, remember
from substrate.consolidation import consolidate
from substrate.curation import capture_offline
from substrate.forgetting import finish_orders, forget, forget_conversation, pending_orders
from substrate.forgetting.purge import sweep_temps
from substrate.lineage import read_tombstones
from substrate.pages import fact_bullets
from substrate.profile import profile_path
from substrate.promotion import record_turns
from substrate.safety import safe_files
from substrate.sessions import NewMessage, SessionLog, open_session_log, transcript_path

STEPS = ("replace", "rename", "link", "unlink", "fsync")
Action = Callable[[Settings, SessionLog], Any]


def killed_at(root: Path, action: Action, step: int) -> int:
    """Run `action` in a forked child that SIGKILLs itself at its `step`th file
    step; how many steps it took when it ran to the end (0 when killed)."""
    counted = root / ".steps"
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        try:
            taken = [0]

            def counting(call: Callable[..., Any]) -> Callable[..., Any]:
                def run(*args: Any, **kwargs: Any) -> Any:
                    taken[0] += 1
                    if taken[0] == step:
                        os.kill(os.getpid(), signal.SIGKILL)
                    return call(*args, **kwargs)

                return run

            for name in STEPS:
                setattr(os, name, counting(getattr(os, name)))
            safe_files.exchange = counting(safe_files.exchange)  # type: ignore[assignment]
            settings = build_settings(root)
            log = open_session_log(settings.workspace)
            taken[0] = 0
            action(settings, log)
            counted.write_text(str(taken[0]))
        finally:
            os._exit(0)
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        return 0
    return int(counted.read_text())


def said(settings: Settings, log: SessionLog, session: str, *turns: str) -> None:
    messages = [NewMessage("user", t, True) for t in turns]
    record_turns(settings, log, session, messages, time.time())
    capture_offline(settings, log, session, time.time())


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A workspace where one session gave a filed fact, a buffered fact and (with
    two other sessions) a promoted line, and another fact stands on its own."""
    root = tmp_path_factory.mktemp("forget") / "ws"
    init_workspace(root)
    settings = build_settings(root)
    log = open_session_log(settings.workspace)
    said(settings, log, "s2", "I prefer dark mode.")
    said(settings, log, "s3", "I prefer dark mode.")
    said(settings, log, "chat-a", "I prefer dark mode.", "My parrot is called Xylophanta.")
    consolidate(settings)
    said(settings, log, "chat-a", "I've started learning Gaelic on Duolingo.")
    remember(settings, "My locker code is QX-4411.")
    remember(settings, "I live in Leith.")
    consolidate(settings)
    log.close()
    return root


def words_in_memory(root: Path, words: tuple[str, ...]) -> list[str]:
    """Files under `memory/` holding any of `words`, once the temp files killed
    writers left are swept (what a purge does, for those older than a minute)."""
    sweep_temps(build_settings(root), older_than_s=0)
    found = []
    for path in (root / "memory").rglob("*"):
        if path.is_file():
            text = path.read_bytes().decode("utf-8", "replace").casefold()
            found += [f"{path.name}: {w}" for w in words if w.casefold() in text]
    return found


def facts_in_one_place(settings: Settings) -> None:
    ids: Counter[str] = Counter(e.id for e in read_buffer(settings))
    for page in settings.workspace.concepts_dir.rglob("*.md"):
        ids.update(b.entry_id for b in fact_bullets(page.read_text()) if b.entry_id)
    assert not ids or max(ids.values()) == 1, ids


def leftovers(root: Path) -> list[str]:
    memory = root / "memory"
    return sorted(p.name for p in memory.rglob(".*journal")) + [
        p.name for p in (memory / ".forgetting").glob("*.json")
    ]


def sweep(template: Path, tmp_path: Path, action: Action, check: Callable[[Path], None]) -> int:
    """Kill `action` at each of its steps in turn; `check` each outcome."""
    total = killed_at(_copy(template, tmp_path / "count"), action, 10**9)
    assert total > 10
    for step in range(1, total + 1):
        root = _copy(template, tmp_path / f"k{step}")
        assert killed_at(root, action, step) == 0, f"step {step} did not kill"
        check(root)
        shutil.rmtree(root)
    return total


def _copy(template: Path, to: Path) -> Path:
    shutil.copytree(template, to, symlinks=True)
    return to


def test_a_session_forget_killed_at_every_step_is_finished_by_the_next_writer(
    template: Path, tmp_path: Path
) -> None:
    def action(settings: Settings, log: SessionLog) -> None:
        forget_conversation(settings, log, "chat-a")

    def check(root: Path) -> None:
        settings = build_settings(root)
        log = open_session_log(settings.workspace)  # rolls a killed erasure forward
        gone = not transcript_path(settings.workspace, "chat-a").exists()
        assert gone == ("chat-a" in read_tombstones(settings.workspace).sessions)
        if pending_orders(settings.workspace) or not gone:
            if gone:
                finish_orders(settings, log)
            else:
                forget_conversation(settings, log, "chat-a")
        assert words_in_memory(root, ("Xylophanta", "Gaelic")) == []
        assert "dark mode" not in profile_path(settings.workspace, "USER.md").read_text()
        assert "Leith" in (root / "memory" / "recent.md").read_text()
        facts_in_one_place(settings)
        assert leftovers(root) == []
        log.close()

    assert sweep(template, tmp_path, action, check) > 10


def test_a_fact_forget_killed_at_every_step_is_finished_by_the_next_forget(
    template: Path, tmp_path: Path
) -> None:
    def action(settings: Settings, log: SessionLog) -> None:
        forget(settings, log, "Xylophanta")
        forget(settings, log, "locker code")

    def check(root: Path) -> None:
        settings = build_settings(root)
        log = open_session_log(settings.workspace)
        finish_orders(settings, log)  # what a purge, the service's start or a forget does
        for what in ("Xylophanta", "locker code"):
            with contextlib.suppress(NotFoundError):  # a killed forget may have finished it
                forget(settings, log, what)
        assert words_in_memory(root, ("Xylophanta", "QX-4411")) == []
        assert [m.text for m in log.messages("chat-a")][1] == "[forgotten]"  # all it said
        facts_in_one_place(settings)
        assert leftovers(root) == []
        log.close()

    assert sweep(template, tmp_path, action, check) > 10
