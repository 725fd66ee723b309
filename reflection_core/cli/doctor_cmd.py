"""`reflection doctor` — placeholder until its feature lands."""

from __future__ import annotations

import click

from reflection_core.cli.common import not_implemented


@click.command("doctor")
def command(**_: object) -> None:
    """Show what is installed and misconfigured."""
    not_implemented("`reflection doctor`")
