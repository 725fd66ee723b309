"""`reflection score`: score a prompt (or a JSONL batch) the way the prompt hook does."""

from __future__ import annotations

import sys

import click

from reflection_core.cli.common import echo_json, load_config_or_exit
from reflection_core.cli.score_batch import score_jsonl


@click.command("score")
@click.argument("prompt", required=False)
@click.option("--prev-assistant", "prev_assistant", help="The previous assistant message.")
@click.option("--json", "as_json", is_flag=True, help="Print the JSON contract fields.")
@click.option(
    "--jsonl",
    "jsonl",
    type=click.Path(exists=True, dir_okay=False, allow_dash=True),
    help='Batch: one {"prompt": ..., "prev_assistant": ...} per line -> one JSON result per line.',
)
def command(
    prompt: str | None, prev_assistant: str | None, as_json: bool, jsonl: str | None
) -> None:
    """Score a prompt (five dimensions, smells, questions). Reads stdin when PROMPT is omitted."""
    from reflection_core.prompt.score import score_prompt

    cfg = load_config_or_exit()
    if jsonl is not None:
        score_jsonl(jsonl, cfg)
        return
    if prompt is None:
        if sys.stdin.isatty():  # waiting on a terminal for a prompt nobody types
            raise click.UsageError("no prompt: pass it as an argument, or pipe it in")
        prompt = sys.stdin.buffer.read().decode("utf-8", errors="replace")
    if not prompt.strip():
        raise click.UsageError("the prompt is empty: there is nothing to score")
    result = score_prompt(prompt, prev_assistant, cfg)
    if as_json:
        echo_json(result.to_dict())
        return
    from reflection_core.prompt.render import report

    click.echo(report(result))
