"""The `reflection` click group. Commands are imported only when invoked."""

from __future__ import annotations

import importlib
from typing import Any

import click

from reflection_core import __version__

# command name -> module under reflection_core.cli exposing `command`
COMMANDS: dict[str, tuple[str, str]] = {
    "init": (
        "init_cmd",
        "Set up this repo: native git hooks and Claude Code hooks (the default), "
        "or the hosts and hooks its flags name.",
    ),
    "doctor": ("doctor_cmd", "Show what is installed and misconfigured, with fixes."),
    "hook": ("hook_cmd", "Run a host hook: JSON on stdin, host JSON/exit code out."),
    "score": ("score_cmd", "Score a prompt (five dimensions, smells, questions)."),
    "analyze": ("analyze_cmd", "What the stop hook would conclude from a transcript."),
    "run": ("run_cmd", "Run a test command and record a ledger stamp."),
    "check": ("check_cmd", "The hook checks (tests, branch, verdict), for CI."),
    "verdict": ("verdict_cmd", "Show, list or wait for verdict files."),
    "notify": ("notify_cmd", "Send notifications for a complete verdict."),
    "verify": ("verify_cmd", "Run configured gates with quick fixes and escalation."),
    "trust": ("trust_cmd", "Let hooks run the commands this repo's config lists."),
    "eval": ("eval_cmd", "Run labelled eval suites and print accuracy tables."),
    "stats": ("stats_cmd", "Prompt score history, smells and trend."),
    "curate": ("curate_cmd", "Propose memory-file (CLAUDE.md) edits from a session."),
    "mcp": ("mcp_cmd", "Serve reflection's tools over stdio MCP."),
}


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        entry = COMMANDS.get(cmd_name)
        if entry is None:
            return None
        module = importlib.import_module(f"reflection_core.cli.{entry[0]}")
        command: click.Command = module.command
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, help_text) for name, (_, help_text) in COMMANDS.items()]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="reflection")
def cli(**_: Any) -> None:
    """reflection: hooks that keep coding agents honest."""
