"""`reflection verify` — run the configured gates with quick fixes and escalation."""

from __future__ import annotations

import hashlib
from pathlib import Path

import click

from reflection_core.cli.common import echo_json, load_config_or_exit


@click.command("verify")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.option("--no-fix", is_flag=True, help="Do not run the gates' quick-fix commands.")
@click.option(
    "--task",
    "task_key",
    default=None,
    help="Fix-attempt tracking key (default: one key per repo for command-line runs).",
)
@click.option("--reset", is_flag=True, help="Forget earlier fix attempts for this task first.")
def command(as_json: bool, no_fix: bool, task_key: str | None, reset: bool) -> None:
    """Run configured gates (tests, lint, typecheck, build) with quick fixes and escalation.

    Exit 0 when every gate passes, 1 when one fails, 2 on a configuration error or
    when no gates are configured or detected.
    """
    from reflection_core.verify.runner import configured_gates, format_failure, run_gates
    from reflection_core.verify.tracker import Tracker

    cfg = load_config_or_exit()
    root = cfg.root or Path.cwd()
    gates, _ = configured_gates(root, cfg)
    if not gates:
        click.echo(
            "reflection verify: no gates configured and none detected. Add them to "
            '.reflection.yaml, e.g.\n  gates:\n    - {name: tests, run: "python -m pytest -q"}',
            err=True,
        )
        raise SystemExit(2)
    key = task_key or "cli:" + hashlib.sha256(str(root.resolve()).encode()).hexdigest()[:16]
    if reset:
        tracker = Tracker(key)
        tracker.reset()
        tracker.close()
    result = run_gates(root, cfg, task_key=key, quick_fix=not no_fix)
    if as_json:
        echo_json(result.to_dict())
    else:
        if result.auto_detected:
            click.echo("(no gates configured: using commands detected from the repo's files)")
        for gate in result.results:
            mark = "PASS" if gate.ok else "FAIL"
            click.echo(f"{mark} {gate.name:<10} {gate.duration_s:6.1f}s  {gate.command}")
        for fix in result.fixes:
            click.echo(f"     quick fix {fix.outcome:<7} {fix.gate}: {fix.fix}")
        for gate in result.results:
            if not gate.ok:
                click.echo("\n" + format_failure(gate))
        if result.escalation:
            click.echo(f"\nEscalated ({result.escalation_reason}):\n{result.escalation}")
            click.echo("Run `reflection verify --reset` to start counting again.")
    raise SystemExit(0 if result.ok else 1)
