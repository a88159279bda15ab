"""Every file is read through the regular-file check (`safety.safe_files`): a
FIFO at `config.toml` or `USER.md`, a link to `/dev/zero`, a link out of the
workspace is refused with one clear error, never a hang or a runaway read."""

from __future__ import annotations

import ast
import os
from pathlib import Path

import pytest

from service.settings_loader import build_settings
from substrate import ConfigError, Workspace, read_buffer
from substrate.errors import NotRegularFileError
from substrate.profile import read_profile

ROOT = Path(__file__).resolve().parents[3]
PACKAGES = ("substrate", "lanes", "injector", "ingest", "service")
# Reads that are not of workspace files, each with why it may skip the check.
ALLOWED = {
    # the embedding model's files, installed with the package (reached through
    # the link `.substrate/models/` keeps to them): hashed for the index identity
    "substrate/index/embedding.py",
    # the English parser's installed files, hashed against their pinned digests
    "substrate/meaning/parser.py",
    # a package root's own source, read for its declared names (the lazy exports)
    "substrate/lazy.py",
}
READS = {"read_text", "read_bytes", "open"}


def direct_reads(source: str) -> list[int]:
    """Lines that open or read a file other than through `safety.safe_files`."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if (isinstance(func, ast.Name) and func.id == "open") or (
            isinstance(func, ast.Attribute) and func.attr in READS
        ):
            lines.append(node.lineno)
    return lines


def test_no_module_reads_a_file_around_the_safety_room() -> None:
    offenders = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if rel.startswith("substrate/safety/") or rel in ALLOWED:
                continue
            found = direct_reads(path.read_text("utf-8"))
            if found:
                offenders[rel] = found
    assert offenders == {}


def test_the_checker_sees_every_way_of_reading() -> None:
    assert direct_reads("open(p)") == [1]
    assert direct_reads("p.read_text()") == [1]
    assert direct_reads("os.open(p, 0)") == [1]
    assert direct_reads("read_regular_file(p, 10)") == []


def test_a_fifo_as_config_profile_or_buffer_fails_at_once(workspace: Workspace) -> None:
    workspace.config_path.unlink()
    os.mkfifo(workspace.config_path)
    with pytest.raises(ConfigError, match="not a regular file \\(a FIFO\\)"):
        build_settings(workspace.root)
    workspace.config_path.unlink()
    settings = build_settings(workspace.root)
    profile = workspace.memory_dir / "profile"
    profile.mkdir()
    os.mkfifo(profile / "USER.md")
    with pytest.raises(NotRegularFileError, match="a FIFO"):
        read_profile(settings)
    (profile / "USER.md").unlink()
    workspace.buffer_path.unlink()
    workspace.buffer_path.symlink_to("/dev/zero")
    with pytest.raises(NotRegularFileError, match="symbolic link"):
        read_buffer(settings)
