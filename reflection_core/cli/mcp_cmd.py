"""`reflection mcp`: serve reflection's tools over stdio MCP."""

from __future__ import annotations

import importlib.util
import shlex
import sys

import click

# The package is not on a public registry under its name: install the SDK itself into
# the interpreter reflection runs in (the `mcp` extra pins the same requirement).
MCP_MISSING = (
    "reflection mcp: the MCP Python SDK is not installed in {python}. Install it there: "
    "{python} -m pip install 'mcp>=2.0'  (or reinstall reflection with its extra: "
    'pip install "$REFLECTION_SOURCE[mcp]")'
)


@click.command("mcp")
def command() -> None:
    """Serve evaluate_prompt, check_completion and latest_verdict over stdio MCP.

    Register it with Claude Code: claude mcp add reflection -- reflection mcp
    """
    if importlib.util.find_spec("mcp") is None:
        click.echo(MCP_MISSING.format(python=shlex.quote(sys.executable)), err=True)
        raise SystemExit(2)
    from reflection_core.consumers.mcp_server import serve

    serve()
