"""Curation tests run against the loopback chat-completions server: a
workspace configured for it, its client and its conversation log."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from substrate import Settings, Workspace
from substrate.llm import ChatClient, open_chat_client
from substrate.sessions import SessionLog, open_session_log
from tests.llm_server import ScriptedLLM
from tests.substrate.curation.scripted import configure


@pytest.fixture
def settings_llm(workspace: Workspace, llm_server: ScriptedLLM) -> Settings:
    return configure(workspace, llm_server.url)


@pytest.fixture
def client(settings_llm: Settings) -> Iterator[ChatClient]:
    opened = open_chat_client(settings_llm)
    assert opened is not None
    yield opened
    opened.close()


@pytest.fixture
def log(settings_llm: Settings) -> Iterator[SessionLog]:
    opened = open_session_log(settings_llm.workspace)
    yield opened
    opened.close()
