"""The web tab under test: Debian's Chromium driven by Playwright against a real
server on loopback, and what the tests read off the page (label overlaps,
node positions) and keep of it (screenshots).

Chromium comes from the system (`make test` installs it where it can); without
it the browser tests skip, unless MEMORY_REQUIRE_BROWSER is set (CI sets it),
when they fail instead. MEMORY_TEST_SCREENSHOTS names a folder that keeps the
screenshots the tests take (else they go to the test's tmp folder).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import httpx

from service.app import create_app
from service.runtime import Runtime
from service.settings_loader import build_settings
from substrate import Settings, Workspace
from tests.embedders import HashingEmbedder
from tests.service.served import served, wait_for_startup_maintain

CHROMIUM = os.environ.get("MEMORY_TEST_CHROMIUM") or shutil.which("chromium")
# Without these, Chromium keeps dialling out and this closed network refuses it.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
TIMEOUT_MS = 120_000  # shared 2-core machines stall for tens of seconds

# Pairs of drawn labels whose boxes intersect (model coordinates).
LABEL_OVERLAPS = """(() => {
  const boxes = state.cy.nodes().filter((n) => n.style('label')).map((n) =>
    [n.id(), n.boundingBox({includeNodes: false, includeEdges: false, includeLabels: true})]);
  const out = [];
  for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
    const [a, p] = boxes[i], [b, q] = boxes[j];
    if (p.x1 < q.x2 && q.x1 < p.x2 && p.y1 < q.y2 && q.y1 < p.y2) out.push([a, b]);
  }
  return out;
})()"""
POSITIONS = "Object.fromEntries(state.cy.nodes().map((n) => [n.id(), n.position()]))"


def runtime(settings: Settings) -> Runtime:
    return Runtime(
        settings, embedder=HashingEmbedder(), multilingual=HashingEmbedder(48), poll_s=0.05
    )


def serve_workspace(workspace: Workspace) -> Any:
    return served(create_app(build_settings(workspace.root), runtime_factory=runtime))


def wait_for_index(base: str) -> None:
    with httpx.Client(base_url=base, timeout=60) as client:
        wait_for_startup_maintain(client)


def positions(page: Any) -> dict[str, tuple[float, float]]:
    found: dict[str, dict[str, float]] = page.evaluate(POSITIONS)
    return {k: (round(v["x"], 3), round(v["y"], 3)) for k, v in found.items()}


def moved(
    before: dict[str, tuple[float, float]], after: dict[str, tuple[float, float]]
) -> list[str]:
    """The nodes on screen both times whose position changed."""
    return sorted(k for k in before.keys() & after.keys() if before[k] != after[k])


def screenshot(page: Any, selector: str, name: str, fallback: Path) -> Path:
    """A panel's screenshot, kept under MEMORY_TEST_SCREENSHOTS when it is set."""
    folder = Path(os.environ.get("MEMORY_TEST_SCREENSHOTS") or fallback)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.png"
    page.locator(selector).screenshot(path=str(path))
    assert path.stat().st_size > 1000  # something was drawn
    return path
