"""The web Memory tab end to end (`tests/service/browser.py`): the graph draws,
search marks hits, a node's detail says why it was selected, pending facts are
nodes of their own, hostile page text stays text, and off tier v3 the tab
explains what to change."""

from __future__ import annotations

from typing import Any

import httpx

from service.settings_loader import build_settings
from substrate import Workspace, remember
from substrate.consolidation import consolidate
from substrate.lineage import read_tombstones
from substrate.sessions import NewMessage, open_session_log
from tests.conftest import PageWriter
from tests.service.browser import LABEL_OVERLAPS, positions, serve_workspace, wait_for_index

PAGES = {
    "people/sam": (
        "---\ntitle: Sam\naliases: [Sammy]\nlinks: [places/lisbon]\n---\n"
        "Sam is allergic to shellfish."
    ),
    "places/lisbon": "---\ntitle: Lisbon\n---\nThe family lives in Lisbon. See [[people/sam]].",
    "notes/hostile": (
        '---\ntitle: "<img src=x onerror=document.title=1>"\n---\n'
        "</pre><script>document.title='pwned'</script> harmless words about kites"
    ),
}


def test_the_tab_draws_the_graph_searches_and_explains_a_selection(
    workspace: Workspace, write_page: PageWriter, page: Any
) -> None:
    for slug, text in PAGES.items():
        write_page(slug, text)
    with serve_workspace(workspace) as base:
        wait_for_index(base)
        with httpx.Client(base_url=base, timeout=60) as client:
            card = client.post(
                "/v1/memory/card", json={"message": "is Sammy ok?", "conversation_id": "chat-1"}
            )
            assert card.status_code == 200
            fact = client.post(
                "/v1/memory/remember",
                json={"text": "Sam now likes oysters", "hints": ["people/sam"]},
            )
            assert fact.status_code == 200, fact.text
        page.goto(base + "/")
        page.wait_for_selector("body[data-graph-ready='yes']")
        assert "3 pages" in page.text_content("#counts")
        assert "1 pending" in page.text_content("#counts")
        kinds = page.evaluate("state.cy.nodes().map((n) => n.data('kind')).sort()")
        assert kinds == ["page", "page", "page", "pending"]

        page.fill("#search-box", "shellfish allergy")
        page.click("#search-form button")
        first = page.wait_for_selector("#result-list a.node-link")
        assert first.get_attribute("data-node") == "people/sam"
        assert page.evaluate("state.cy.getElementById('people/sam').hasClass('hit')")

        first.click()
        page.wait_for_selector("#detail[data-node='people/sam'] #why-selected")
        why = page.text_content("#why-selected")
        assert "chat-1" in why and "entity" in why
        assert "places/lisbon" in page.text_content("#detail")  # links both ways

        page.click("#detail a.node-link[data-node='places/lisbon']")
        page.wait_for_selector("#detail[data-node='places/lisbon']")
        assert page.text_content("#detail h2") == "Lisbon"


def test_hostile_page_text_is_shown_as_text_never_run(
    workspace: Workspace, write_page: PageWriter, page: Any
) -> None:
    for slug, text in PAGES.items():
        write_page(slug, text)
    with serve_workspace(workspace) as base:
        wait_for_index(base)
        page.goto(base + "/")
        page.wait_for_selector("body[data-graph-ready='yes']")
        page.fill("#search-box", "kites")
        page.click("#search-form button")
        page.click("#result-list a.node-link[data-node='notes/hostile']")
        page.wait_for_selector("#detail[data-node='notes/hostile']")
        assert page.text_content("#detail h2") == "<img src=x onerror=document.title=1>"
        assert "<script>" in page.text_content("#detail .body")
        assert page.locator("#detail img, #detail script").count() == 0
        assert page.title() == "Memory"  # neither payload ran


def test_off_tier_v3_the_tab_explains_what_to_change(workspace: Workspace, page: Any) -> None:
    workspace.config_path.write_text("[memory.v3]\nlive = false\n")
    with serve_workspace(workspace) as base:
        page.goto(base + "/")
        page.wait_for_selector("#unavailable:not([hidden])")
        assert "Tier: v2" in page.text_content("#unavailable-reason")
        assert "memory config migrate --to-v3" in page.text_content("#unavailable-action")
        assert page.is_hidden("#graph")
        page.wait_for_selector("#tier[data-tier='v2']")
        assert page.text_content("#tier") == "Tier v2"
        reason = page.text_content("#tier-reason")
        assert "memory.v3.live = false" in reason and "memory.v2.enabled = true (default)" in reason


def test_the_tab_shows_the_profile_files_and_active_promotions(
    workspace: Workspace, write_page: PageWriter, page: Any
) -> None:
    write_page("people/sam", PAGES["people/sam"])
    profile = workspace.memory_dir / "profile"
    profile.mkdir(parents=True, exist_ok=True)
    (profile / "SOUL.md").write_text("<b>Never</b> share the address.\n")
    with serve_workspace(workspace) as base:
        wait_for_index(base)
        with httpx.Client(base_url=base, timeout=60) as client:
            for session in ("s1", "s2", "s3"):
                said = client.post(
                    f"/v1/conversations/{session}/messages",
                    json={"messages": [{"role": "user", "text": "I prefer TypeScript"}]},
                )
                assert said.status_code == 200, said.text
        page.goto(base + "/")
        item = page.wait_for_selector("#promotion-list li[data-id]")
        assert "Prefer TypeScript." in item.text_content()
        files = page.text_content("#profile-files")
        assert "USER.md" in files and "SOUL.md" in files and "protected" in files
        assert "<b>Never</b>" in files  # shown as text, not markup
        assert page.evaluate("document.querySelectorAll('#profile-files b').length") == 0


def test_the_tab_tends_memory_and_each_action_reaches_the_files(
    workspace: Workspace, write_page: PageWriter, page: Any
) -> None:
    """Correct and forget a fact, pin and delete a page: each click confirmed, each
    change checked on disk; labels stay short, hits carry scores, and the
    learning panel says what memory learns from."""
    settings = build_settings(workspace.root)
    write_page("people/sam", PAGES["people/sam"])
    write_page("places/lisbon", PAGES["places/lisbon"])
    remember(settings, "Sam started judo on Tuesdays.", ["people/sam"])
    remember(settings, "Sam plays the cello in a quartet.", ["people/sam"])
    consolidate(settings)
    long = "Sam mentioned a very long story about the trip to the mountains last winter"
    remember(settings, long, ["people/sam"])
    sam = workspace.concepts_dir / "people/sam.md"
    answers = {"prompt": "Sam started karate on Tuesdays."}
    page.on("dialog", lambda d: d.accept(answers["prompt"]) if d.type == "prompt" else d.accept())
    with serve_workspace(workspace) as base:
        wait_for_index(base)
        page.goto(base + "/")
        page.wait_for_selector("body[data-graph-ready='yes']")
        labels = page.evaluate("state.cy.nodes().map((n) => [n.data('label'), n.data('full')])")
        assert max(len(label) for label, _ in labels) <= 18
        assert any(full.startswith("Sam mentioned a very long story") for _, full in labels)
        assert not any("[[" in full for _, full in labels)
        overlaps = page.evaluate(LABEL_OVERLAPS)
        assert overlaps == [], overlaps
        assert "search hit" in page.text_content("#legend")
        page.wait_for_selector("#learning-state dl")
        learning = page.text_content("#learning-state")
        assert "not configured" in learning and "Sessions logged" in learning

        page.fill("#search-box", "cello quartet")
        page.click("#search-form button")
        page.wait_for_selector("#result-list .score")
        assert page.evaluate("state.cy.getElementById('people/sam').data('score')") == 1

        page.click("#result-list a.node-link[data-node='people/sam']")
        page.wait_for_selector("#detail[data-node='people/sam'] #fact-list")
        assert "<!--" not in page.text_content("#detail") and "e:" not in page.text_content(
            "#detail .body"
        )
        judo = page.locator("#fact-list li", has_text="judo")
        judo.locator("button[data-action='correct']").click()
        page.wait_for_selector("body[data-acted='1']")
        assert "replaced by: Sam started karate on Tuesdays." in sam.read_text()
        page.wait_for_selector("#earlier-list li.superseded")

        cello = page.locator("#fact-list li.current", has_text="cello")
        cello.locator("button[data-action='forget']").click()
        page.wait_for_selector("body[data-acted='2']")
        assert "cello" not in sam.read_text()  # erased from the page
        assert page.locator("#fact-list li", has_text="cello").count() == 0
        (grave,) = read_tombstones(workspace).facts.values()
        assert grave["via"] == "web"  # the tab says which surface it is

        before = positions(page)
        page.click("#page-actions button[data-action='pin']")
        page.wait_for_selector("body[data-acted='3']")
        assert "core: true" in sam.read_text()
        assert positions(page) == before  # the graph was updated in place, not laid out again

        page.click("#page-actions button[data-action='delete']")
        page.wait_for_selector("body[data-acted='4']")
        assert not sam.exists()
        assert list((workspace.memory_dir / "trash").rglob("sam.md"))


def test_the_tab_lists_conversations_shows_an_episodes_turns_and_forgets_them(
    workspace: Workspace, write_page: PageWriter, page: Any
) -> None:
    """Sessions by title, date and turns; an episode a search found opens on its
    turns; forgetting one message, then the whole session, from the tab reaches
    the log and the index. Conversation text is shown as text, never run."""
    write_page("people/sam", PAGES["people/sam"])
    log = open_session_log(workspace)
    log.append(
        "trip-chat",
        [
            NewMessage("user", "We should book the ferry to Santorini for the second week.", True),
            NewMessage("assistant", "The ferry from Piraeus takes <b>five</b> hours.", True),
            NewMessage("user", "Also reserve the kite lesson in Naxos.", True),
        ],
        1_700_000_000.0,
    )
    log.close()
    page.on("dialog", lambda d: d.accept())
    with serve_workspace(workspace) as base:
        wait_for_index(base)
        page.goto(base + "/")
        link = page.wait_for_selector("#session-list a.session-link[data-session='trip-chat']")
        assert link.text_content() == "We should book the ferry to Santorini for the second week."
        assert "2023-11-14 · 3 turns" in page.text_content("#session-list")

        page.fill("#search-box", "ferry to Santorini")
        page.click("#search-form button")
        page.click("#result-list a.episode-link[data-session='trip-chat']")
        page.wait_for_selector("#session-turns[data-session='trip-chat'] li.turn")
        turns = page.text_content("#session-turns")
        assert "you: We should book the ferry" in turns and "assistant: The ferry" in turns
        assert "<b>five</b>" in turns  # as text
        assert page.evaluate("document.querySelectorAll('#session-turns b').length") == 0

        kite = page.locator("#session-turns li.turn", has_text="kite lesson")
        kite.locator("button[data-action='forget-message']").click()
        page.wait_for_selector("body[data-acted='1']")
        page.wait_for_selector("#session-turns[data-session='trip-chat']")
        assert "kite lesson" not in page.text_content("#session-turns")
        assert "2 turns" in page.text_content("#session-list")

        page.click("#session-turns button[data-action='forget-session']")
        page.wait_for_selector("body[data-acted='2']")
        assert "No conversations logged yet." in page.text_content("#session-list")
        with httpx.Client(base_url=base, timeout=60) as client:
            assert client.get("/v1/sessions").json()["sessions"] == []
            found = client.post(
                "/v1/memory/search", json={"query": "ferry to Santorini", "kind": "episode"}
            ).json()
            assert found["hits"] == []
