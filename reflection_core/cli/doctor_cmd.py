"""`reflection doctor`: report what is installed and misconfigured, with a fix for each."""

from __future__ import annotations

import click

from reflection_core.cli.common import echo_json

_MARK = {"ok": "ok", "info": "--", "warn": "!!", "problem": "XX"}


@click.command("doctor")
@click.option("--json", "as_json", is_flag=True, help="Findings as JSON.")
def command(as_json: bool) -> int:
    """Show what is installed where and what is broken; exit 1 when something is."""
    from reflection_core.install.doctor import run_checks

    findings = run_checks()
    problems = [f for f in findings if f.level == "problem"]
    if as_json:
        echo_json({"ok": not problems, "findings": [f.to_dict() for f in findings]})
    else:
        for finding in findings:
            click.echo(f"[{_MARK[finding.level]}] {finding.topic}: {finding.message}")
            if finding.fix and finding.level != "ok":
                click.echo(f"     fix: {finding.fix}")
        click.echo(f"\n{len(problems)} problem(s)." if problems else "\nNo problems found.")
    return 1 if problems else 0
