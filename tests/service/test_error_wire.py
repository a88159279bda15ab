"""Error kinds survive the wire: every error class rendered as the service's
answer body comes back as the same class with the same message and exit code,
and a command run through a running service prints and exits as the local
call does."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from service.app import create_app
from service.cli import cli
from service.routes.common import error_response
from service.runtime import Runtime
from service.settings_loader import build_settings
from substrate import Settings, init_workspace
from substrate.errors import (
    MemoryServiceError,
    ScannerRejection,
    error_kinds,
    from_wire,
)
from tests.embedders import HashingEmbedder
from tests.service.served import served


def sample(cls: type[MemoryServiceError]) -> MemoryServiceError:
    if issubclass(cls, ScannerRejection):
        return cls("credential", "looks like a GitHub token", "user")
    return cls(f"a {cls.__name__} happened (file x.md)")


@pytest.mark.parametrize("code", sorted(error_kinds()))
def test_every_error_class_comes_back_as_itself(code: str) -> None:
    cls = error_kinds()[code]
    raised = sample(cls)
    answer = error_response(raised.http_status, raised.code, raised.message, raised.fields())
    back = from_wire(answer.status_code, __import__("json").loads(answer.body))
    assert type(back) is cls
    assert (back.message, back.exit_code, back.fields()) == (
        raised.message,
        raised.exit_code,
        raised.fields(),
    )


def test_codes_are_unique_across_the_tree() -> None:
    seen: dict[str, str] = {}
    todo = [MemoryServiceError]
    while todo:
        cls = todo.pop()
        if "code" in vars(cls):
            assert seen.setdefault(cls.code, cls.__name__) == cls.__name__, (cls.code, seen)
        todo.extend(cls.__subclasses__())


def test_an_unknown_code_falls_back_on_the_status() -> None:
    back = from_wire(404, {"error": {"status": 404, "code": "brand_new", "message": "gone"}})
    assert back.message == "gone" and back.http_status == 404


def runtime(settings: Settings) -> Runtime:
    return Runtime(settings, embedder=HashingEmbedder(), multilingual=HashingEmbedder(48))


@pytest.fixture
def live(tmp_path: Path) -> Iterator[tuple[Path, str]]:
    root = tmp_path / "ws"
    init_workspace(root)
    root.joinpath("config.toml").write_text("[memory.substrate]\nscanner_detector = false\n")
    with served(create_app(build_settings(root), runtime_factory=runtime)) as url:
        yield root, url


def both(root: Path, url: str, *args: str) -> tuple[tuple[int, str], tuple[int, str]]:
    """The command here and through the service: (exit code, last stderr line) each."""
    runner = CliRunner()
    outcomes = []
    for extra in ((), ("--url", url)):
        done = runner.invoke(cli, [*args, "--workspace", str(root), *extra])
        lines = (done.stderr or "").strip().splitlines()
        outcomes.append((done.exit_code, lines[-1] if lines else ""))
    return outcomes[0], outcomes[1]


@pytest.mark.parametrize(
    ("args", "exit_code", "said"),
    [
        (("remember", "my key is ghp_" + "a1" * 18), 2, "scanner rule 'credential'"),
        (("remember", "x" * (40 * 1024)), 1, "bytes"),
        (("remember", "a fact", "--hint", "../etc"), 1, "slug"),
    ],
)
def test_a_command_through_the_service_exits_and_says_what_the_local_one_does(
    live: tuple[Path, str], args: tuple[str, ...], exit_code: int, said: str
) -> None:
    root, url = live
    here, there = both(root, url, *args)
    assert here == there
    assert here[0] == exit_code and said in here[1]


def test_memory_disabled_is_not_a_lock_error_through_the_service(tmp_path: Path) -> None:
    root = tmp_path / "off"
    init_workspace(root)
    root.joinpath("config.toml").write_text("[memory]\nenabled = false\n")
    with served(create_app(build_settings(root), runtime_factory=runtime)) as url:
        here, there = both(root, url, "remember", "a fact")
    assert here == there and here[0] == 1 and "lock" not in here[1]
