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


def test_the_cluster_runs_three_qdrant_nodes_and_the_multi_workspace_service() -> None:
    doc = yaml.safe_load((COMPOSE / "cluster.yml").read_text())
    services = doc["services"]
    nodes = sorted(name for name in services if name.startswith("qdrant-"))
    assert nodes == ["qdrant-1", "qdrant-2", "qdrant-3"]
    images = {services[n]["image"] for n in nodes}
    assert len(images) == 1 and re.fullmatch(r"qdrant/qdrant:v1\.\d+\.\d+", images.pop())
    assert all(services[n]["environment"]["QDRANT__CLUSTER__ENABLED"] == "true" for n in nodes)
    for n in ("qdrant-2", "qdrant-3"):  # the others join the first
        assert services[n]["command"][1:3] == ["--bootstrap", "http://qdrant-1:6335"]
    memory = services["memory"]
    env = memory["environment"]
    assert env["MEMORY_WORKSPACES"] and int(env["MEMORY_PROCESSES"]) >= 2
    assert ":?" in env["MEMORY_ADMIN_TOKEN"] and env["QDRANT_URL"] == "http://qdrant-1:6333"
    assert env["QDRANT_REPLICATION"] == "2"
    assert all(memory["depends_on"][n]["condition"] == "service_healthy" for n in nodes)
    volumes = {v.split(":")[0] for s in services.values() for v in s.get("volumes", [])}
    assert volumes <= set(doc["volumes"])
    entry = (COMPOSE / "entrypoint.sh").read_text()
    assert 'memory serve --workspaces "$MEMORY_WORKSPACES" --processes' in entry
