"""`reflection check` — placeholder until its feature lands."""

from __future__ import annotations

import click

from reflection_core.cli.common import not_implemented


@click.command("check", context_settings={"ignore_unknown_options": True})
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def command(**_: object) -> None:
    """The hook checks, for CI."""
    not_implemented("`reflection check`")
