"""`reflection stats`: what the hooks did over a window, per repository and host.

Stops judged, pushed on and held; the outcome of each (graded from what happened
next); prompts flagged; test runs from the ledgers; the estimated precision and recall;
and the prompt score history. Text, `--json`, a self-contained `--html` dashboard, and
an opt-in `--export` of counts and rule ids.
"""

from __future__ import annotations

import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import click

from reflection_core.cli.common import echo_json

DEFAULT_DAYS = 30


def _since(value: str | None, days: int, now: float) -> float:
    """The window's start: `--since` (a date or ISO time) or `--days` back, at 00:00 UTC."""
    if value:
        try:
            moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            raise click.BadParameter(f"not a date: {value!r} (use YYYY-MM-DD)") from None
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=timezone.utc)
        return moment.timestamp()
    start = now - (max(1, days) - 1) * 86400.0
    return start - start % 86400.0


@click.command("stats")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.option(
    "--html",
    "html_file",
    type=click.Path(dir_okay=False, writable=True, path_type=Path),
    help="Also write a self-contained HTML dashboard (dated charts per repository).",
)
@click.option(
    "--export",
    "export_file",
    type=click.Path(dir_okay=False, writable=True, path_type=Path),
    help="Write outcome counts and rule ids (no text, no repository names) to FILE.",
)
@click.option("--since", help="Start of the window (YYYY-MM-DD or an ISO time, UTC).")
@click.option("--days", type=click.IntRange(1, 366), default=DEFAULT_DAYS, show_default=True)
def command(
    as_json: bool,
    html_file: Path | None,
    export_file: Path | None,
    since: str | None,
    days: int,
) -> None:
    """Stops, pushes, holds and their outcomes per repository; prompt scores and trend."""
    import json

    from reflection_core.atomic import write_text_atomic
    from reflection_core.outcomes import dashboard, report
    from reflection_core.outcomes import stats as outcome_stats
    from reflection_core.prompt import stats_report

    now = time.time()
    window = outcome_stats.Window(_since(since, days, now), now)
    prompts, summary, scores = _load(window)
    if html_file is not None:
        write_text_atomic(html_file, dashboard.html_page(summary, prompts.to_dict(), scores))
    if export_file is not None:
        text = json.dumps(outcome_stats.export(summary), indent=2) + "\n"
        write_text_atomic(export_file, text)
    if as_json:
        echo_json({**prompts.to_dict(), **summary})
        return
    click.echo(stats_report.text(prompts))
    click.echo("")
    click.echo(report.text(summary))
    for path in (html_file, export_file):
        if path is not None:
            click.echo(f"wrote {path}")


def _load(window: Any) -> tuple[Any, dict[str, Any], list[tuple[float, float]]]:
    """The prompt summary, the outcome summary and the prompt scores in the window;
    reading never creates the database."""
    import sqlite3

    from reflection_core import state
    from reflection_core.outcomes import stats as outcome_stats
    from reflection_core.outcomes import store
    from reflection_core.prompt import history

    prompts = history.summarize([], 0)
    stops: list[Any] = []
    flags: list[tuple[float, str, str]] = []
    scores: list[tuple[float, float]] = []
    if state.db_path().exists():
        try:
            conn = history.connect()
            try:
                state.ensure_schema(conn, store.DDL)
                entries = history.load_entries(conn)
                prompts = history.summarize(entries, history.count(conn))
                scores = [(e.created_at, e.score) for e in entries if e.created_at >= window.since]
                stops = store.load_stops(conn, window.since)
                flags = store.load_prompt_flags(conn, window.since)
            finally:
                conn.close()
        except sqlite3.Error as exc:
            click.echo(f"reflection: cannot read the state database: {exc}", err=True)
            raise SystemExit(1) from None
    runs = _test_runs(sorted({s.repo for s in stops} | {f[1] for f in flags}))
    return prompts, outcome_stats.summarize(stops, flags, runs, window), scores


def _test_runs(repos: list[str]) -> list[Any]:
    """Every recorded test run of the repositories whose ledger is reachable."""
    from reflection_core.guards import ledger
    from reflection_core.outcomes.stats import LedgerRun

    runs = []
    for repo in repos:
        root = Path(repo)
        if not root.is_dir():
            continue
        for stamp in ledger.read(root, warn=False):
            try:
                at = datetime.strptime(stamp.timestamp, "%Y-%m-%dT%H:%M:%S.%fZ")
            except ValueError:
                continue
            runs.append(LedgerRun(at.replace(tzinfo=timezone.utc).timestamp(), repo, stamp.passed))
    return runs
