"""`memory card` end to end with the real model: JSON shape, conversations, voice, batch."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from service.cli import cli
from substrate import Workspace
from tests.conftest import PageWriter

pytestmark = pytest.mark.slow


def test_card_json_conversation_voice_and_batch(
    workspace: Workspace, write_page: PageWriter
) -> None:
    write_page("people/sam", "---\ntitle: Sam\n---\nSam is allergic to shellfish.")
    write_page("places/porto", "---\ntitle: Porto\n---\nThe train to Porto leaves at noon.")
    workspace.view_path("essentials.md").write_text("- Dana lives in Lisbon.\n")
    runner = CliRunner()
    ws = ["--workspace", str(workspace.root)]

    first = runner.invoke(
        cli, ["card", *ws, "--json", "--conversation", "c1", "what is Sam allergic to?"]
    )
    assert first.exit_code == 0, first.output
    blocks = json.loads(first.stdout)
    assert set(blocks) == {"tier", "memory", "info", "profile", "selected"}
    assert blocks["tier"] == "v3"
    assert blocks["profile"] == ""  # no profile file yet
    assert blocks["selected"][0]["slug"] == "people/sam"
    assert set(blocks["selected"][0]) == {"slug", "title", "lanes", "score", "dated"}
    assert "Dana lives in Lisbon" in blocks["info"]

    voice = runner.invoke(cli, ["card", *ws, "--json", "--voice", "--conversation", "c1", "hm?"])
    assert json.loads(voice.stdout)["memory"] == blocks["memory"]

    plain = runner.invoke(cli, ["card", *ws, "Porto train"])
    assert plain.stdout.startswith("<memory>") and "<info>" in plain.stdout

    batch = runner.invoke(
        cli,
        ["card", *ws, "--batch"],
        input='Sam\n{"message": "and then?", "conversation_id": "c1"}\n',
    )
    lines = [json.loads(line) for line in batch.stdout.splitlines()]
    assert len(lines) == 2
    assert any("hot" in s["lanes"] for s in lines[1]["selected"])
    assert not any("hot" in s["lanes"] for s in lines[0]["selected"])


def test_a_cards_pages_are_dated_by_their_newest_current_fact_and_show_it_first(
    workspace: Workspace,
) -> None:
    runner = CliRunner()
    ws = ["--workspace", str(workspace.root)]
    for text, at in (
        ("I moved to Manchester.", "2024-06-02T10:00"),
        ("I live in Leeds, near Hyde Park.", "2024-03-01T10:00"),  # told late, dated early
        ("I rent a flat with a small garden.", "2024-04-10T10:00"),
    ):
        assert runner.invoke(cli, ["remember", *ws, text, "--at", at]).exit_code == 0
    assert runner.invoke(cli, ["consolidate", *ws]).exit_code == 0
    card = json.loads(runner.invoke(cli, ["card", *ws, "--json", "where do I live?"]).stdout)
    [home] = [s for s in card["selected"] if s["slug"] == "me/home"]
    assert home["dated"] == "2024-06-02"
    assert 'dated="2024-06-02"' in card["memory"]
    memory = card["memory"]
    assert memory.index("I moved to Manchester.") < memory.index("was: I live in Leeds")


def test_a_v1_workspace_files_remembered_facts_into_its_knowledge_base_and_shows_them(
    workspace: Workspace,
) -> None:
    workspace.config_path.write_text("[memory.v2]\nenabled = false\n[memory.v3]\nlive = false\n")
    runner = CliRunner()
    ws = ["--workspace", str(workspace.root)]
    assert (
        runner.invoke(cli, ["remember", *ws, "Dana's bike is stored in the red shed"]).exit_code
        == 0
    )
    filed = runner.invoke(cli, ["consolidate", *ws])
    assert filed.exit_code == 0, filed.output
    assert filed.stdout.startswith("1 filed into the knowledge base (remembered/")
    card = runner.invoke(cli, ["card", *ws, "--json", "where is Dana's bike stored?"])
    blocks = json.loads(card.stdout)
    assert blocks["tier"] == "v1" and "red shed" in blocks["knowledge_base"]
    assert set(blocks) == {"tier", "knowledge_base", "profile", "selected"}
    plain = runner.invoke(cli, ["card", *ws, "where is Dana's bike stored?"])
    assert plain.stdout.startswith("<knowledge_base>")
    stats = json.loads(runner.invoke(cli, ["stats", *ws, "--json"]).stdout)
    assert (stats["tier"], stats["corpus"], stats["pages"]) == ("v1", "pkb", 1)


def test_the_lead_fact_is_chosen_by_meaning_when_the_turn_shares_no_word_with_it(
    workspace: Workspace, write_page: PageWriter
) -> None:
    workspace.config_path.write_text("[memory.v3]\nlive = true\ncard_budget_chars = 420\n")
    write_page(
        "me/health",
        '---\ntitle: "Health"\n---\n<!-- memory:facts -->\n## Facts\n'
        "- [2024-03-01] The office moved our team to the fifth floor in March.\n"
        "- [2024-03-02] My knee surgery went fine and the office sent flowers.\n"
        "- [2024-03-03] A throat specialist said my vocal cords need two months of rest.\n"
        "<!-- /memory:facts -->\n",
    )
    runner = CliRunner()
    ws = ["--workspace", str(workspace.root)]
    assert runner.invoke(cli, ["maintain", *ws]).exit_code == 0
    card = json.loads(runner.invoke(cli, ["card", *ws, "--json", "Can I sing yet?"]).stdout)
    body = card["memory"].split('lanes="sim">\n', 1)[1].split("\n</page>", 1)[0]
    assert body.split("\n")[0].endswith("my vocal cords need two months of rest.")


def test_card_without_a_message_says_what_to_type(workspace: Workspace) -> None:
    done = CliRunner().invoke(cli, ["card", "--workspace", str(workspace.root)])
    assert done.exit_code == 64
    assert "give a MESSAGE (e.g. `memory card" in done.output and "not both" not in done.output


def test_an_imported_conversation_shows_the_line_that_answers_not_its_opening(
    workspace: Workspace,
) -> None:
    """A long imported session whose answer is said late and in other words: the
    card's episode holds that line (chosen by meaning from the window), and a
    forgotten session's line vectors go with it."""
    from substrate.index.unit_vectors import UnitVectors

    chatter = [
        ("user", "Morning! Grey weather all week."),
        ("assistant", "Good for reading, at least."),
        ("user", "I started a thriller a friend lent me."),
        ("assistant", "Want similar titles for later?"),
        ("user", "Maybe later, too many open books."),
        ("assistant", "Fair. What else is on your mind?"),
        ("user", "Errands: groceries, a parcel, dry cleaning."),
        ("user", "My dog Biscuit sees Dr. Amara Okafor at the Elm Street animal clinic."),
        ("assistant", "Good to know, I will remember that."),
    ]
    export = workspace.root.parent / "chat.jsonl"
    rows = [
        {"session": "errands", "role": role, "text": text, "time": 1.7e9 + 60 * i}
        for i, (role, text) in enumerate(chatter)
    ]
    export.write_text("".join(json.dumps(row) + "\n" for row in rows))
    workspace.config_path.write_text("[memory.v3]\nlive = true\ncard_budget_chars = 900\n")
    runner = CliRunner()
    ws = ["--workspace", str(workspace.root)]
    assert runner.invoke(cli, ["import", "jsonl", str(export), *ws]).exit_code == 0
    assert runner.invoke(cli, ["maintain", *ws]).exit_code == 0
    turn = "Which veterinarian looks after my puppy?"
    done = runner.invoke(cli, ["card", *ws, "--json", turn])
    card = json.loads(done.stdout)["memory"]
    assert "<episode" in card and "Dr. Amara Okafor" in card
    assert "Grey weather all week" not in card
    units = UnitVectors(workspace.index_dir / "units")
    slugs = [s for s in _indexed_slugs(workspace) if s.startswith("episode/")]
    assert slugs and all(units.path(s).is_file() for s in slugs)
    assert runner.invoke(cli, ["forget", "--session", "import:jsonl:errands", *ws]).exit_code == 0
    assert runner.invoke(cli, ["maintain", *ws]).exit_code == 0
    assert not any(units.path(s).exists() for s in slugs)


def test_the_conversation_that_last_updated_a_page_is_reached_from_that_page(
    workspace: Workspace,
) -> None:
    """An update said in passing, in a conversation about something else, is
    filed to a page; conversations nearer the turn's words crowd it out of
    the episode search. The page found for the turn leads to the conversation
    its newest fact came from (lineage), so the card shows where it was said;
    once that conversation is forgotten, neither it nor its fact is left."""
    t = 1.7e9
    said = [("launch", t, "I'm building Crumb, a bakery ordering app, with React Native.")]
    topics = ["web", "game", "mobile", "data", "desktop", "testing", "frontend", "backend"]
    said += [
        (
            f"talk-{topic}",
            t + 86400 * (n + 2),
            f"Which framework do people use now for {topic} apps? I keep reading comparisons.",
        )
        for n, topic in enumerate(topics)
    ]
    said.append(
        (
            "update",
            t + 86400 * 30,
            "We're planning a long weekend in Porto and I'd love seafood near the river. "
            "By the way, I switched Crumb to Flutter last month after the Android build broke.",
        )
    )
    rows = [
        row
        for session, at, text in said
        for row in (
            {"session": session, "role": "user", "text": text, "time": at},
            {"session": session, "role": "assistant", "text": "Noted, thanks!", "time": at + 60},
        )
    ]
    export = workspace.root.parent / "chat.jsonl"
    export.write_text("".join(json.dumps(row) + "\n" for row in rows))
    runner = CliRunner()
    ws = ["--workspace", str(workspace.root)]
    for step in (["import", "jsonl", str(export)], ["consolidate"], ["maintain"]):
        assert runner.invoke(cli, [*step, *ws]).exit_code == 0
    turn = "Which framework is Crumb built with now?"
    card = json.loads(runner.invoke(cli, ["card", *ws, "--json", turn]).stdout)["memory"]
    assert 'session="import:jsonl:update"' in card and "seafood near the river" in card
    forget = ["forget", "--session", "import:jsonl:update"]
    assert runner.invoke(cli, [*forget, *ws]).exit_code == 0
    assert runner.invoke(cli, ["maintain", *ws]).exit_code == 0
    card = json.loads(runner.invoke(cli, ["card", *ws, "--json", turn]).stdout)["memory"]
    assert "Flutter" not in card and "seafood" not in card


def _indexed_slugs(workspace: Workspace) -> list[str]:
    from substrate.index.index_state import read_index_state, state_path

    return list(read_index_state(state_path(workspace.index_dir)).get("pages", {}))
