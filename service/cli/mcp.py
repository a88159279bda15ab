"""`memory mcp`: the MCP server over stdio, for a host that launches it."""

from __future__ import annotations

from pathlib import Path

import click

from service.cli.base import url_option, workspace_option
from service.cli.capabilities import cli_capabilities
from service.cli.target import target_for
from service.mcp import build_server
from service.mcp.stdio import serve_stdio
from service.settings_loader import build_settings


@click.command("mcp")
@workspace_option
@url_option
def mcp(workspace: Path, url: str | None) -> None:
    """Serve MCP over stdio for the workspace (tools: remember, search, get_context,
    read_page, list_pages, ingest, consolidate, and the operator commands).

    While `memory serve` runs for the workspace (or --url names a service), the
    tools go through it, since it owns the index; otherwise they run here.
    Nothing but the protocol is written to stdout."""
    settings = build_settings(workspace)
    target = target_for(workspace, url, cli_capabilities)
    serve_stdio(build_server(settings, lambda: target))
