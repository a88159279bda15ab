"""`memory doctor` names what the person would otherwise lose sight of: a view
showing what the pages no longer hold (`stale_view`, derived again by
`--fix`), a page that does not parse, a fact held for review."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest
from click.testing import CliRunner

from service.cli import cli
from service.runtime import Runtime
from service.settings_loader import build_settings
from substrate import Workspace, remember
from substrate.consolidation import consolidate
from substrate.intake import hold_entries
from tests.conftest import PageWriter
from tests.embedders import HashingEmbedder


def doctor(workspace: Workspace, *flags: str) -> tuple[int, dict[str, Any]]:
    result = CliRunner().invoke(
        cli, ["doctor", "--workspace", str(workspace.root), "--json", *flags]
    )
    return result.exit_code, json.loads(result.stdout)


def kinds(report: dict[str, Any]) -> list[str]:
    return sorted(p["kind"] for p in report["problems"])


def test_a_stale_view_is_found_and_derived_again(workspace: Workspace) -> None:
    settings = build_settings(workspace.root)
    remember(settings, "I live in Leeds, in a flat near Hyde Park.")
    consolidate(settings)
    page = workspace.concepts_dir / "me/home.md"
    page.write_text(page.read_text().replace("Leeds, in a flat near Hyde Park", "Salford"))
    essentials = workspace.memory_dir / "essentials.md"
    essentials.write_text(essentials.read_text() + "\n## My notes\n\nCall the landlord.\n")
    code, report = doctor(workspace)
    assert code == 1 and set(kinds(report)) >= {"stale_view"}
    stale = [p["message"] for p in report["problems"] if p["kind"] == "stale_view"]
    assert any("recent.md" in m for m in stale) and any("essentials.md" in m for m in stale)
    code, report = doctor(workspace, "--fix")
    assert "stale_view" not in kinds(report)
    shown = essentials.read_text() + (workspace.memory_dir / "recent.md").read_text()
    assert "Salford" in shown and "Hyde Park" not in shown
    assert "Call the landlord." in essentials.read_text()  # the person's own part is kept


def test_an_unparsable_page_and_a_held_fact_are_named(
    workspace: Workspace, write_page: PageWriter
) -> None:
    settings = build_settings(workspace.root)
    write_page("notes/broken", "---\ntitle: [unclosed\n---\nText.\n")
    held = remember(settings, "Keep my notes tidy.")
    hold_entries(settings, {held.id: "test_rule"})
    code, report = doctor(workspace)
    problems = {p["kind"]: p for p in report["problems"]}
    assert code == 1 and {"page_parse", "held_fact"} <= set(problems)
    assert "notes/broken" in problems["page_parse"]["message"]
    assert held.id in problems["held_fact"]["message"]
    assert "test_rule" in problems["held_fact"]["message"]
    code, report = doctor(workspace, "--fix")
    assert {"page_parse", "held_fact"} <= set(kinds(report))  # the person's to decide
    assert (workspace.concepts_dir / "notes/broken.md").read_text().startswith("---\ntitle: [")


def test_the_service_log_names_an_unparsable_page_and_a_held_fact_once(
    workspace: Workspace, write_page: PageWriter, caplog: pytest.LogCaptureFixture
) -> None:
    settings = build_settings(workspace.root)
    write_page("notes/broken", "---\ntitle: [unclosed\n---\nText.\n")
    held = remember(settings, "Keep my notes tidy.")
    hold_entries(settings, {held.id: "test_rule"})
    rt = Runtime(settings, embedder=HashingEmbedder(), multilingual=HashingEmbedder(48))
    try:
        with caplog.at_level(logging.WARNING, logger="memory.service"):
            rt._maintain_job({})
            rt._maintain_job({})
    finally:
        rt.close()
    said = [r.getMessage() for r in caplog.records if r.name == "memory.service"]
    assert sum("broken.md does not parse" in m for m in said) == 1
    assert sum(f"fact {held.id} is held for review (rule test_rule)" in m for m in said) == 1
