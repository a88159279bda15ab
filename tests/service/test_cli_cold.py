"""A command loads only what it needs: the everyday ones start no model session.

Each runs in a fresh interpreter (the only honest cold start); an exit hook
reports which heavy packages the command imported."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from substrate import init_workspace

HEAVY = ("onnxruntime", "fastembed", "openai", "qdrant_edge", "fastapi")
PROBE = (
    "import atexit, json, sys\n"
    "heavy = {heavy!r}\n"
    "atexit.register(lambda: print('LOADED=' + json.dumps(sorted("
    "m for m in heavy if m in sys.modules)), file=sys.stderr))\n"
    "from service.cli import main\n"
    "sys.argv = ['memory', *sys.argv[1:]]\n"
    "main()\n"
)


def loaded(args: list[str], heavy: tuple[str, ...] = (*HEAVY, "numpy")) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(heavy=heavy), *args],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    line = next(x for x in done.stderr.splitlines() if x.startswith("LOADED="))
    found: list[str] = json.loads(line.removeprefix("LOADED="))
    return found


@pytest.fixture
def folder(tmp_path: Path) -> str:
    init_workspace(tmp_path / "ws")
    return str(tmp_path / "ws")


@pytest.mark.parametrize("command", ["buffer", "pages", "validate", "stats", "status"])
def test_reading_commands_start_no_model_session(folder: str, command: str) -> None:
    assert not set(loaded([command, "--workspace", folder])) & set(HEAVY)


def test_remember_loads_neither_a_model_nor_numpy(folder: str) -> None:
    """The user's own fact is scanned by the rules here; the learned detector's
    opinion on it is taken where the model is loaded anyway (consolidation)."""
    assert loaded(["remember", "--workspace", folder, "I take my tea with oat milk"]) == []
