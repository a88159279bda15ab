"""The workspace and output options are accepted before or after any command,
and `maintain` counts the CLI's capability entries apart from concept pages."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from service.cli import hoisted
from substrate import MaintainReport, init_workspace


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        (["--workspace", "W", "stats"], ["stats", "--workspace", "W"]),
        (
            ["--json", "--workspace=W", "sessions", "list"],
            ["sessions", "list", "--json", "--workspace=W"],
        ),
        (
            ["--workspace", "W", "remember", "--", "--json"],
            ["remember", "--workspace", "W", "--", "--json"],
        ),
        (["stats", "--workspace", "W"], ["stats", "--workspace", "W"]),
        (["--workspace", "W"], ["--workspace", "W"]),
        (["--version"], ["--version"]),
    ],
)
def test_leading_options_are_handed_to_the_named_command(
    given: list[str], expected: list[str]
) -> None:
    assert hoisted(given) == expected


def memory(*args: str) -> subprocess.CompletedProcess[str]:
    code = "from service.cli import main; main()"
    return subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=60
    )


def test_options_before_and_after_a_nested_subcommand_agree(tmp_path: Path) -> None:
    init_workspace(tmp_path / "ws")
    ws = str(tmp_path / "ws")
    before = memory("--workspace", ws, "--json", "promotions", "explain", "I prefer tea")
    after = memory("promotions", "explain", "I prefer tea", "--workspace", ws, "--json")
    assert before.returncode == after.returncode == 0, before.stderr
    assert json.loads(before.stdout) == json.loads(after.stdout)
    shown = memory("--workspace", ws, "sessions", "show", "s-none")
    assert shown.returncode == 1 and "no session 's-none'" in shown.stderr


def test_a_command_without_json_says_so_whichever_side_the_option_is_on(tmp_path: Path) -> None:
    init_workspace(tmp_path / "ws")
    done = memory("--json", "--workspace", str(tmp_path / "ws"), "mode")
    assert done.returncode == 64 and "No such option '--json'" in done.stderr


def test_maintain_counts_capability_entries_apart() -> None:
    report = MaintainReport(63, 140, 0, 2, 1.5, False, capabilities=33)
    assert report.line().startswith(
        "embedded 30 pages and 33 command capability entries (140 chunks)"
    )
    assert MaintainReport(4, 9, 1, 0, 0.2, False).line().startswith("embedded 4 pages (9 chunks)")
    assert report.as_json()["capabilities"] == 33


def test_a_closed_pipe_ends_the_command_quietly(tmp_path: Path) -> None:
    """`memory pages | head -1`: the reader stops early; the command exits 0
    and says nothing (it used to print "a file could not be read or written:
    Broken pipe")."""
    root = tmp_path / "ws"
    init_workspace(root)
    for i in range(400):
        page = root / "memory" / "concepts" / f"notes/n{i:03d}.md"
        page.parent.mkdir(parents=True, exist_ok=True)
        page.write_text(f"---\ntitle: Note {i}\n---\nLine {i}.\n")
    memory = str(Path(sys.executable).parent / "memory")
    command = [memory, "pages", "--workspace", str(root)]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.readline()
    proc.stdout.close()  # the reader is done
    assert proc.wait(timeout=120) == 0
    assert proc.stderr.read() == b""
    proc.stderr.close()
