"""`reflection notify` — placeholder until its feature lands."""

from __future__ import annotations

import click

from reflection_core.cli.common import not_implemented


@click.command("notify", context_settings={"ignore_unknown_options": True})
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def command(**_: object) -> None:
    """Send notifications."""
    not_implemented("`reflection notify`")
