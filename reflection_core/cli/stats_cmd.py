"""`reflection stats` — placeholder until its feature lands."""

from __future__ import annotations

import click

from reflection_core.cli.common import not_implemented


@click.command("stats", context_settings={"ignore_unknown_options": True})
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def command(**_: object) -> None:
    """Prompt score history."""
    not_implemented("`reflection stats`")
