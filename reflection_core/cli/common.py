"""Helpers shared by command modules: config loading with exit-2 errors, JSON output."""

from __future__ import annotations

import json
from typing import Any, NoReturn

import click

from reflection_core import config as config_mod


def load_config_or_exit(start: str | None = None) -> config_mod.Config:
    """The repo's config; a bad file is a usage error (exit 2) naming file and key."""
    try:
        return config_mod.load(start)
    except config_mod.ConfigError as exc:
        click.echo(f"reflection: configuration error: {exc}", err=True)
        raise SystemExit(2) from None


def echo_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, ensure_ascii=False))


def not_implemented(feature: str) -> NoReturn:
    """For contract commands whose feature has not landed: say so, exit 2, never pretend."""
    click.echo(f"reflection: {feature} is not implemented yet.", err=True)
    raise SystemExit(2)
