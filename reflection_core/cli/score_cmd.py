"""`reflection score`: score a prompt (or a JSONL batch) the way the prompt hook does."""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from reflection_core.cli.common import echo_json, load_config_or_exit


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
        _score_jsonl(jsonl, cfg)
        return
    if prompt is None:
        prompt = sys.stdin.buffer.read().decode("utf-8", errors="replace")
    result = score_prompt(prompt, prev_assistant, cfg)
    if as_json:
        echo_json(result.to_dict())
        return
    from reflection_core.prompt.render import report

    click.echo(report(result))


def _score_jsonl(path: str, cfg: Any) -> None:
    """One result per input line; a bad line yields an error object, never a crash."""
    from reflection_core.prompt.score import Settings, score_prompt

    settings = Settings.from_config(cfg)  # read once for the whole batch
    # json.dumps(item, ensure_ascii=False) builds an encoder per call; one serves the batch.
    # The results are fresh trees of dicts and lists: no cycle to look for.
    encode = json.JSONEncoder(ensure_ascii=False, check_circular=False).encode
    stream = sys.stdin.buffer if path == "-" else open(path, "rb")  # noqa: SIM115
    out = sys.stdout
    try:
        for number, raw in enumerate(stream, start=1):
            line = raw.decode("utf-8", errors="replace").strip()
            if not line:
                continue
            item = _parse_line(line, number)
            if "error" in item:
                out.write(encode(item) + "\n")
                continue
            prompt, prev = item["prompt"], item.get("prev_assistant")
            result = score_prompt(prompt, prev, settings=settings).to_dict()
            if item.get("id") is not None:
                result = {"id": item["id"], **result}
            out.write(encode(result) + "\n")
    finally:
        if stream is not sys.stdin.buffer:
            stream.close()
    out.flush()


def _parse_line(line: str, number: int) -> dict[str, Any]:
    try:
        item = json.loads(line)
    except ValueError as exc:
        return {"line": number, "error": f"not valid JSON: {exc}"}
    if not isinstance(item, dict) or not isinstance(item.get("prompt"), str):
        return {"line": number, "error": 'expected an object with a string "prompt"'}
    prev = item.get("prev_assistant")
    if prev is not None and not isinstance(prev, str):
        return {"line": number, "error": '"prev_assistant" must be a string or null'}
    return item
