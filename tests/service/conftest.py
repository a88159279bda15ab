"""The browser the web tab's tests drive: one Chromium per module, a fresh
context per test, and a test fails when a script on the page throws."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest
from playwright import sync_api as playwright_api

from tests.service.browser import CHROMIUM, CHROMIUM_ARGS, TIMEOUT_MS


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not CHROMIUM:
        if os.environ.get("MEMORY_REQUIRE_BROWSER"):
            pytest.fail("MEMORY_REQUIRE_BROWSER is set but no chromium is installed")
        pytest.skip("no chromium on this machine (apt-get install chromium)")
    with playwright_api.sync_playwright() as pw:
        launched = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    tab = context.new_page()
    tab.set_default_timeout(TIMEOUT_MS)
    thrown: list[str] = []
    tab.on("pageerror", lambda error: thrown.append(str(error)))
    yield tab
    context.close()
    assert thrown == [], thrown  # a script on the page threw
