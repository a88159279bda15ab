"""`run-now` answers once what was remembered before it is filed, even when a
run that began earlier (and took the buffer before the remember) is still
going: it waits that run out and runs once more, instead of joining it."""

from __future__ import annotations

import threading
import time
from typing import Any

from service.runtime import Runtime
from service.settings_loader import build_settings
from substrate import Workspace, read_buffer
from tests.embedders import HashingEmbedder


def test_run_now_files_a_remember_made_while_an_earlier_run_was_running(
    workspace: Workspace,
) -> None:
    settings = build_settings(workspace.root)
    rt = Runtime(
        settings, embedder=HashingEmbedder(), multilingual=HashingEmbedder(48), poll_s=0.05
    )
    real = rt.memory.file_buffer
    began, go = threading.Event(), threading.Event()
    calls: list[int] = []

    def first_run_took_the_buffer_early(*args: Any, **kwargs: Any) -> dict[str, Any]:
        calls.append(1)
        if len(calls) == 1:  # the earlier run: its buffer was read before the remember
            began.set()
            go.wait(30)
            return {"nothing_filed": True}
        return real(*args, **kwargs)

    rt.memory.file_buffer = first_run_took_the_buffer_early  # type: ignore[method-assign]
    rt.start()
    try:
        earlier = threading.Thread(target=rt.run_now, args=(False, None, True), daemon=True)
        earlier.start()
        assert began.wait(30)
        rt.memory.remember("Sam moved to Porto.")
        answer: dict[str, Any] = {}
        later = threading.Thread(
            target=lambda: answer.update(rt.run_now(False, None, True)), daemon=True
        )
        later.start()
        time.sleep(0.3)  # the later request is waiting on the running one
        go.set()
        later.join(60)
        earlier.join(60)
        assert answer.get("state") == "done", answer
        assert read_buffer(settings) == []  # filed by the time run-now answered
        assert len(calls) == 2
    finally:
        go.set()
        rt.close()
