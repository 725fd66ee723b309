"""`reflection mcp`: reflection's read-only tools over stdio MCP (`claude mcp add reflection --
reflection mcp`).

Three tools return the contract JSON: `evaluate_prompt` (the prompt score),
`check_completion` (what the stop hook would conclude from a transcript, with no
side effects, redacted like `reflection analyze --json`) and `latest_verdict` (the
verdict file of a session). The tool bodies are plain functions so tests and other
callers can use them without a server; a failure raises ToolError, which the client
sees as an error result with the message.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import Any

from reflection_core import config as config_mod
from reflection_core import paths
from reflection_core.consumers import verdict_files
from reflection_core.redact import redact_obj

SERVER_NAME = "reflection"
INSTRUCTIONS = (
    "reflection checks coding-agent work. evaluate_prompt scores a prompt on clarity, context, "
    "restrictions, verifiability and scope and suggests questions; check_completion reads a "
    "Claude Code or Codex transcript and says whether the task is proven done (tests ran and "
    "passed after the last change, PR/push gates); latest_verdict returns the stop hook's verdict."
)


class ToolFailure(Exception):
    """A tool cannot answer; the message says why and what to do."""


def _config() -> config_mod.Config:
    try:
        return config_mod.load()
    except config_mod.ConfigError as exc:
        raise ToolFailure(f"configuration error: {exc}") from None


def evaluate_prompt(prompt: str, prev_assistant: str | None = None) -> dict[str, Any]:
    """Score a prompt: five dimensions, smells, questions to ask, suggested reformulation."""
    cfg = _config()
    try:
        from reflection_core.prompt.score import score_prompt

        result: dict[str, Any] = score_prompt(prompt, prev_assistant, cfg).to_dict()
    except ImportError as exc:
        raise ToolFailure(f"the prompt scorer is not available in this install: {exc}") from None
    return result


def check_completion(transcript_path: str) -> dict[str, Any]:
    """What the stop hook would conclude from a transcript JSONL, without side effects
    (redacted, as `reflection analyze --json` prints it)."""
    path = Path(transcript_path).expanduser()
    if not path.is_file():
        raise ToolFailure(f"no transcript file at {transcript_path!r}")
    try:
        from reflection_core.session.analyze import analyze_transcript

        result: dict[str, Any] = redact_obj(analyze_transcript(path).to_dict())
    except ImportError as exc:
        raise ToolFailure(
            f"the transcript analyzer is not available in this install: {exc}"
        ) from None
    return result


def latest_verdict(session_id: str | None = None, repo: str | None = None) -> dict[str, Any]:
    """The verdict of a session (the newest of the repo when no session is given)."""
    root = paths.find_repo_root(repo or os.getcwd())
    if root is None:
        raise ToolFailure(f"{repo or os.getcwd()} is not inside a git repository")
    try:
        verdict = verdict_files.latest_verdict(root, session_id or None)
    except verdict_files.VerdictError as exc:
        raise ToolFailure(str(exc)) from None
    if verdict is None:
        which = f"for session {session_id!r} " if session_id else ""
        raise ToolFailure(f"no verdict {which}under {paths.reflection_dir(root)}")
    return verdict.data


def build_server() -> Any:
    """The MCP server (MCP Python SDK 2.x `MCPServer`) with the three tools registered."""
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError

    server = MCPServer(SERVER_NAME, instructions=INSTRUCTIONS)

    def tool(function: Any) -> None:
        @functools.wraps(function)
        def run(*args: Any, **kwargs: Any) -> dict[str, Any]:
            try:
                result: dict[str, Any] = function(*args, **kwargs)
            except ToolFailure as exc:
                raise ToolError(str(exc)) from None
            return result

        server.tool(name=function.__name__, description=function.__doc__)(run)

    for function in (evaluate_prompt, check_completion, latest_verdict):
        tool(function)
    return server


def serve() -> None:
    """Serve over stdio until the client closes the connection."""
    build_server().run("stdio")
