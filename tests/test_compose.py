"""compose/: the image carries every package of the project, and the
compose file wires the service to its Qdrant server with a required token.
(Running the stack needs Docker; see tests/substrate/index/test_qdrant_server.py
for the tests that run against a live Qdrant server.)"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
COMPOSE = ROOT / "compose"


def test_the_image_copies_every_package_the_project_installs() -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    packages = {
        p.rstrip("*") for p in pyproject["tool"]["setuptools"]["packages"]["find"]["include"]
    }
    copied = set(re.findall(r"^COPY (\w+) \1$", (COMPOSE / "Dockerfile").read_text(), re.M))
    assert packages <= copied, f"Dockerfile does not copy {sorted(packages - copied)}"


def test_compose_points_the_service_at_qdrant_and_requires_a_token() -> None:
    doc = yaml.safe_load((COMPOSE / "docker-compose.yml").read_text())
    memory, qdrant = doc["services"]["memory"], doc["services"]["qdrant"]
    env = memory["environment"]
    assert env["QDRANT_URL"] == "http://qdrant:6333"
    assert ":?" in env["MEMORY_SERVICE_TOKEN"]  # compose refuses to start without it
    assert memory["depends_on"]["qdrant"]["condition"] == "service_healthy"
    assert "healthcheck" in qdrant
    assert all(volume.split(":")[0] in doc["volumes"] for volume in memory["volumes"])
    assert "memory serve" in (COMPOSE / "entrypoint.sh").read_text()
