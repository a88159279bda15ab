"""What the engines read from a page beyond its text: the lineage of its
newest captured fact (which conversation last updated it)."""

from __future__ import annotations

from injector.page_state import PageState
from substrate import Workspace
from substrate.pages import load_page_index

PAGE = """---
title: Crumb app
---
Notes on the bakery app.

<!-- memory:facts -->
## Facts
- [2024-03-01] I'm building Crumb with React Native. <!-- e:0a1b2c3d4e5f src:captured from:3,4 -->
- [2024-06-02] Crumb moved to Flutter last week. <!-- e:1a1b2c3d4e5f src:captured from:41 -->
- [2024-05-09] I told Sam about Crumb. <!-- e:2a1b2c3d4e5f -->
### Earlier
- [2024-07-01] Crumb used Expo. <!-- e:3a1b2c3d4e5f src:captured from:77 status:superseded -->
<!-- /memory:facts -->
"""


def test_a_page_s_newest_current_captured_fact_names_the_messages_it_came_from(
    workspace: Workspace,
) -> None:
    """The newest current fact drawn from a conversation gives its messages: a
    remembered fact has none, and a fact no longer current (under Earlier,
    however new) is not where the page stands now."""
    (workspace.concepts_dir / "crumb.md").write_text(PAGE)
    (workspace.concepts_dir / "plain.md").write_text("---\ntitle: Plain\n---\nNo facts.\n")
    state = PageState.for_workspace(workspace, 0.0, 0.98)
    entries = load_page_index(workspace).entries
    assert state.newest_sources(entries["crumb"]) == (41,)
    assert state.newest_sources(entries["plain"]) == ()
