"""`reflection mcp` — placeholder until its feature lands."""

from __future__ import annotations

import click

from reflection_core.cli.common import not_implemented


@click.command("mcp")
def command(**_: object) -> None:
    """Serve tools over stdio MCP."""
    not_implemented("`reflection mcp`")
