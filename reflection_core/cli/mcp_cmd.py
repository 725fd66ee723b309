"""`reflection mcp`: serve reflection's tools over stdio MCP."""

from __future__ import annotations

import importlib.util

import click


@click.command("mcp")
def command() -> None:
    """Serve evaluate_prompt, check_completion and latest_verdict over stdio MCP.

    Register it with Claude Code: claude mcp add reflection -- reflection mcp
    """
    if importlib.util.find_spec("mcp") is None:
        click.echo(
            "reflection: the MCP Python SDK is not installed; pip install 'reflection-hooks[mcp]'",
            err=True,
        )
        raise SystemExit(2)
    from reflection_core.consumers.mcp_server import serve

    serve()
