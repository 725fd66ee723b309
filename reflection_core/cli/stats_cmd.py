"""`reflection stats`: prompt score history, smell histogram and trend."""

from __future__ import annotations

from pathlib import Path

import click

from reflection_core.cli.common import echo_json


@click.command("stats")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
@click.option(
    "--html",
    "html_file",
    type=click.Path(dir_okay=False, writable=True, path_type=Path),
    help="Also write a self-contained HTML page (trend chart, smell histogram).",
)
def command(as_json: bool, html_file: Path | None) -> None:
    """Show the last 10 prompt scores, the smell histogram and the trend."""
    import sqlite3

    from reflection_core import state
    from reflection_core.atomic import write_text_atomic
    from reflection_core.prompt import history, stats_report

    summary = history.summarize([], 0)
    if state.db_path().exists():  # reading must not create the state database
        try:
            conn = history.connect()
            try:
                summary = history.summarize(history.load_entries(conn), history.count(conn))
            finally:
                conn.close()
        except sqlite3.Error as exc:
            click.echo(f"reflection: cannot read the prompt history: {exc}", err=True)
            raise SystemExit(1) from None
    if html_file is not None:
        write_text_atomic(html_file, stats_report.html_page(summary))
    if as_json:
        echo_json(summary.to_dict())
    else:
        click.echo(stats_report.text(summary))
        if html_file is not None:
            click.echo(f"wrote {html_file}")
