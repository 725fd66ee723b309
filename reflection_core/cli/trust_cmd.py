"""`reflection trust` — allow hooks to run the commands this repository's config lists."""

from __future__ import annotations

from pathlib import Path

import click

from reflection_core.cli.common import load_config_or_exit


@click.command("trust")
@click.option("--show", is_flag=True, help="Only list the commands and whether they are trusted.")
def command(show: bool) -> None:
    """Trust this repository's config: its gate and fix commands may run from hooks.

    Trust covers this exact config file; any edit to it needs `reflection trust` again.
    """
    from reflection_core import trust

    cfg = load_config_or_exit()
    root = cfg.root or Path.cwd()
    commands = trust.repo_commands(cfg)
    if not commands:
        click.echo("reflection trust: this repository's config runs no commands.")
        return
    state = "trusted" if trust.is_trusted(root, cfg) else "not trusted"
    click.echo(f"{cfg.source} ({state}) would run:")
    for line in commands:
        click.echo(f"  {line}")
    if show:
        return
    trust.trust(root, cfg)
    click.echo("reflection trust: trusted; hooks may run these commands until the config changes.")
