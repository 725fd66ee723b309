"""Helpers shared by command modules: config loading with exit-2 errors, JSON output."""

from __future__ import annotations

import json
import math
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


class Seconds(click.FloatRange):
    """A duration option: a finite number of seconds from 0 to `maximum`. FloatRange alone
    lets NaN through (every comparison with it is false), and a NaN or infinite deadline
    never passes."""

    name = "seconds"

    def __init__(self, maximum: float = 86400.0) -> None:
        super().__init__(0.0, maximum)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        seconds = super().convert(value, param, ctx)
        if math.isnan(seconds):
            self.fail(f"{value!r} is not a number of seconds", param, ctx)
        return seconds


def not_implemented(feature: str) -> NoReturn:
    """For contract commands whose feature has not landed: say so, exit 2, never pretend."""
    click.echo(f"reflection: {feature} is not implemented yet.", err=True)
    raise SystemExit(2)
