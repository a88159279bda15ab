"""MCP: the product's tools over stdio and streamable HTTP (`server`)."""

from service.mcp.server import build_server

__all__ = ["build_server"]
