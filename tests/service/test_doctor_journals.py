"""`memory doctor` and the changes a killed writer left half done: a remember
killed between the buffer and the archive, a profile change killed between
its two files. The doctor names each, `--fix` finishes it from its journal,
and a read-only workspace is checked without the store it cannot open."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest
from click.testing import CliRunner

from service.cli import cli
from substrate import Settings, read_buffer
from substrate.intake import intake_journal, parse_buffer
from substrate.profile import profile_journal
from tests.mounts import read_only

# Runs one change and dies (os._exit, as a kill would) at the first open of a
# file whose path holds argv[2], after the journal is written.
KILLED = """
import os, sys
from datetime import UTC, datetime
from pathlib import Path
from service.settings_loader import build_settings

settings = build_settings(Path(sys.argv[1]))
real_open = os.open

def dying(path, flags, *args, **kwargs):
    if sys.argv[2] in str(path) and flags & (os.O_WRONLY | os.O_RDWR):
        os._exit(9)
    return real_open(path, flags, *args, **kwargs)

os.open = dying
if sys.argv[3] == "remember":
    from substrate import remember
    remember(settings, "I keep bees", now=datetime(2026, 11, 29, 14, 0, tzinfo=UTC))
else:
    from substrate.profile import commit_profile, profile_lease, replace_step
    from substrate.safety import read_text_snapshot
    ws = settings.workspace
    user = ws.memory_dir / "profile" / "USER.md"
    other = ws.memory_dir / "profile" / "MEMORY.md"
    with profile_lease(ws):
        steps = []
        for path, line in ((user, "- Keeps bees.\\n"), (other, "- Bees need water.\\n")):
            text, snap = read_text_snapshot(path)
            steps.append(replace_step(path, text + line, snap))
        commit_profile(ws, steps)
"""


def killed(settings: Settings, dies_at: str, change: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", KILLED, str(settings.workspace.root), dies_at, change],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 9, done.stderr


def doctor(settings: Settings, *flags: str) -> tuple[int, dict[str, Any]]:
    result = CliRunner().invoke(
        cli, ["doctor", "--workspace", str(settings.workspace.root), "--json", *flags]
    )
    assert result.stdout, (result.stderr, result.exception)
    return result.exit_code, json.loads(result.stdout)


def test_a_remember_killed_between_buffer_and_archive_is_named_and_finished(
    settings: Settings,
) -> None:
    killed(settings, "archive", "remember")
    assert intake_journal(settings).exists()
    assert [e.text for e in read_buffer(settings)] == ["I keep bees"]
    code, found = doctor(settings)
    assert code == 1
    [problem] = [p for p in found["problems"] if p["kind"] == "unfinished_change"]
    assert ".intake.journal" in problem["message"] and "archive" in problem["message"]
    code, fixed = doctor(settings, "--fix")
    assert code == 0, fixed
    assert [p["kind"] for p in fixed["fixed"]] == ["unfinished_change"]
    archive = settings.workspace.archive_dir / "2026-11-29.md"
    assert [e.text for e in parse_buffer(archive.read_text())] == ["I keep bees"]
    assert not intake_journal(settings).exists()


def test_a_profile_change_killed_between_its_files_is_finished_by_the_fix(
    settings: Settings,
) -> None:
    killed(settings, "MEMORY.md", "profile")
    profile = settings.workspace.memory_dir / "profile"
    assert "Keeps bees" in (profile / "USER.md").read_text()
    assert not (profile / "MEMORY.md").exists()
    code, found = doctor(settings)
    assert code == 1 and any("profile.journal" in p["message"] for p in found["problems"])
    code, _ = doctor(settings, "--fix")
    assert code == 0
    assert "Bees need water" in (profile / "MEMORY.md").read_text()
    assert not profile_journal(settings.workspace).exists()


@pytest.mark.slow  # the real models index a page, so there is a store to open
def test_a_read_only_workspace_is_checked_without_its_store(settings: Settings) -> None:
    page = settings.workspace.concepts_dir / "people" / "sam.md"
    page.parent.mkdir(parents=True)
    page.write_text("---\ntitle: Sam\n---\nSam keeps bees.\n")
    maintained = CliRunner().invoke(cli, ["maintain", "--workspace", str(settings.workspace.root)])
    assert maintained.exit_code == 0, maintained.output
    killed(settings, "archive", "remember")
    with read_only(settings.workspace.root):
        code, found = doctor(settings)
    assert code == 1
    assert any(p["kind"] == "unfinished_change" for p in found["problems"])
    assert any("skipped" in note for note in found["notes"]), found
