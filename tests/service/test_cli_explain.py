"""`memory sessions explain SESSION_ID [--json]`: each user turn, what capture
took from it, what it skipped and why."""

from __future__ import annotations

import json

from click.testing import CliRunner

from service.cli import cli
from substrate import Workspace
from substrate.sessions import NewMessage, open_session_log


def test_explain_lists_each_user_turn_with_its_captures_and_skips(workspace: Workspace) -> None:
    log = open_session_log(workspace)
    log.append(
        "s1",
        [
            NewMessage("user", "I live in Leeds with my wife and our two cats.", True),
            NewMessage("assistant", "Lovely!", True),
            NewMessage("user", "Fwd: I moved to Berlin in June.", True),
        ],
        1.0,
    )
    log.close()
    args = ["sessions", "explain", "s1", "--workspace", str(workspace.root)]
    answer = CliRunner().invoke(cli, [*args, "--json"])
    assert answer.exit_code == 0, answer.output
    turns = json.loads(answer.stdout)["turns"]
    assert [(t["role"], t["captured"]) for t in turns] == [
        ("user", ["I live in Leeds with my wife and our two cats."]),
        ("assistant", []),  # every turn is listed with its id, the assistant's not read
        ("user", []),
    ]
    assert turns[1]["not_read"] == "the assistant's turn"
    assert all(isinstance(t["message"], int) for t in turns)
    assert turns[2]["skipped"] == [{"text": "Fwd: I moved to Berlin in June.", "why": "forwarded"}]
    plain = CliRunner().invoke(cli, args)
    assert "skipped (forwarded): Fwd: I moved to Berlin in June." in plain.stdout
    missing = CliRunner().invoke(
        cli, ["sessions", "explain", "nope", "--workspace", str(workspace.root)]
    )
    assert missing.exit_code != 0 and "no session" in missing.output
