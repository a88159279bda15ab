"""The docs name what the code serves: every `/v1` route, every MCP tool, every
substrate room; and modules are named for what they serve (route modules for
their URL prefix, CLI modules for their command or command group)."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

from fastapi.routing import APIRoute

from service.cli import COMMANDS

ROOT = Path(__file__).resolve().parent.parent
ROUTES = ROOT / "service" / "routes"
# CLI modules that hold a family of commands, and the commands they hold.
CLI_GROUPS = {
    "held": {"release"},
    "forget": {"correct", "history"},
    "purge": {"lineage"},
    "chat_import": {"import"},
    "workspace": {"init", "validate", "pages", "buffer", "stats", "config"},
    "curation": {
        "review", "recent", "apply", "reject", "undo", "populate",
        "finalization", "status", "mode", "compact", "edit",
    },
}  # fmt: skip


def docs() -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in sorted((ROOT / "docs").glob("*.md")))


def route_modules() -> dict[str, list[APIRoute]]:
    out = {}
    for path in sorted(ROUTES.glob("*.py")):
        if path.stem in {"__init__", "common"}:
            continue
        module = importlib.import_module(f"service.routes.{path.stem}")
        out[path.stem] = [r for r in module.router.routes if isinstance(r, APIRoute)]
    return out


def test_each_route_module_serves_the_prefix_it_is_named_for() -> None:
    for name, routes in route_modules().items():
        prefix = name.replace("_", "-")
        assert routes, name
        for route in routes:
            segment = route.path.split("/")[2]
            assert segment == prefix or segment.startswith(f"{prefix}-"), (name, route.path)


def test_every_v1_route_is_documented() -> None:
    text = docs()
    missing = [
        route.path
        for routes in route_modules().values()
        for route in routes
        if route.path not in text
    ]
    assert missing == []


def mcp_tools() -> list[str]:
    tree = ast.parse((ROOT / "service" / "mcp" / "server.py").read_text(encoding="utf-8"))
    return [
        node.name
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and any("tool" in ast.unparse(d) for d in node.decorator_list)
    ]


def test_every_mcp_tool_is_documented() -> None:
    tools = mcp_tools()
    assert len(tools) >= 10
    text = (ROOT / "docs" / "mcp.md").read_text(encoding="utf-8")
    assert [t for t in tools if f"`{t}`" not in text] == []


def test_every_room_is_named_in_the_layout_the_architecture_and_the_package() -> None:
    rooms = sorted(p.parent.name for p in (ROOT / "substrate").glob("*/__init__.py"))
    assert len(rooms) >= 10
    package = ast.get_docstring(ast.parse((ROOT / "substrate" / "__init__.py").read_text()))
    for where, text in (
        ("docs/layout.md", (ROOT / "docs" / "layout.md").read_text(encoding="utf-8")),
        ("docs/architecture.md", (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")),
        ("substrate/__init__.py", package or ""),
    ):
        assert [r for r in rooms if f"`{r}`" not in text] == [], where


def test_each_cli_module_is_named_for_its_command_or_group() -> None:
    for command, (module, _) in COMMANDS.items():
        assert module == command or command in CLI_GROUPS.get(module, set()), (command, module)
