from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from service.settings_loader import build_settings
from substrate import Settings, Workspace, init_workspace, open_workspace
from substrate.config.cpus import cgroup_quota, usable_cpus
from tests.llm_server import ScriptedLLM

# A test slower than this is named as it finishes: a CI run cut off by its
# time limit never reaches pytest's --durations table.
SLOW_TEST_S = 30.0

PageWriter = Callable[..., Path]


@pytest.fixture
def workspace(tmp_path: Path) -> Workspace:
    root = tmp_path / "ws"
    init_workspace(root)
    return open_workspace(root)


@pytest.fixture
def settings(workspace: Workspace) -> Settings:
    return build_settings(workspace.root)


@pytest.fixture
def write_page(workspace: Workspace) -> PageWriter:
    """Write a concept page; `mtime` (epoch seconds) pins the file time."""

    def write(slug: str, text: str, mtime: float | None = None) -> Path:
        path = workspace.concepts_dir / f"{slug}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        if mtime is not None:
            os.utime(path, (mtime, mtime))
        return path

    return write


@pytest.fixture
def llm_server() -> Iterator[ScriptedLLM]:
    """A loopback chat-completions server; queue its answers with `say`/`fail`/`stall`."""
    with ScriptedLLM().serving() as server:
        yield server


# Shared 2-core machines stall unpredictably; a per-example deadline would make
# property tests flaky without saying anything about the code.
settings_profile = __import__("hypothesis").settings
settings_profile.register_profile("memory", deadline=None)
settings_profile.load_profile("memory")


def pytest_sessionstart(session: pytest.Session) -> None:
    """Say what the machine offers: model speed hangs on it (see substrate/cpus.py)."""
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        affinity = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None
        reporter.write_line(
            f"cpus: usable {usable_cpus()}, os.cpu_count {os.cpu_count()}, "
            f"affinity {affinity}, cgroup quota {cgroup_quota()}, "
            f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}"
        )


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.when == "call" and report.duration > SLOW_TEST_S:
        print(f"\n[slow] {report.nodeid} took {report.duration:.0f} s", file=sys.stderr)
