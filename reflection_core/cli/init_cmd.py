"""`reflection init` — placeholder until its feature lands."""

from __future__ import annotations

import click

from reflection_core.cli.common import not_implemented


@click.command("init", context_settings={"ignore_unknown_options": True})
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def command(**_: object) -> None:
    """Set up this repo."""
    not_implemented("`reflection init`")
