"""`.substrate/` holds derived state only: deleting it loses no conversation,
promotion, curation record or consolidation reason."""

from __future__ import annotations

import json
import shutil

from click.testing import CliRunner

from service.cli import cli
from service.settings_loader import build_settings
from substrate import Workspace, remember
from substrate.consolidation import consolidate
from substrate.curation import CurationStore
from substrate.promotion import promote_turn
from substrate.sessions import NewMessage, open_session_log


def test_deleting_substrate_loses_nothing(workspace: Workspace) -> None:
    workspace.config_path.write_text("[memory.substrate]\nscanner_detector = false\n")
    settings = build_settings(workspace.root)
    log = open_session_log(settings.workspace)
    for i, session in enumerate(("s1", "s2", "s3")):
        log.append(session, [NewMessage("user", "I prefer TypeScript", True)], 100.0 + i)
        promote_turn(settings, log, session, "I prefer TypeScript", 100.0 + i)
        log.end(session, "exit", 200.0 + i)
    log.close()
    entry = remember(settings, "Sam moved to Porto")
    consolidate(settings)
    CurationStore.load(settings.workspace).flush()
    runner = CliRunner()
    ws = ["--workspace", str(workspace.root)]

    def views() -> list[object]:
        return [
            json.loads(runner.invoke(cli, [*command, *ws, "--json"]).stdout)
            for command in (
                ["sessions"],
                ["promotions"],
                ["status"],
                ["finalization", "list"],
                ["consolidate", "--explain", entry.id],
            )
        ]

    before = views()
    shutil.rmtree(workspace.state_dir)
    after = views()
    assert after == before
    assert len(before[0]["sessions"]) == 3 and before[1]["records"]
    assert before[4]["decisions"] and before[4]["state"] == "filed"
