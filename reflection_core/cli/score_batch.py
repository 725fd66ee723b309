"""`reflection score --jsonl FILE`'s batch loop, without click: a plain batch skips its import.

The console script sends `reflection score --jsonl FILE` here directly (see `entry`);
any other form of `reflection score` goes through click and ends in the same loop.
"""

from __future__ import annotations

import json
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def run_plain(path: str) -> int:
    """The batch with the repo's config; a bad config file is a usage error (exit 2)."""
    from reflection_core import config as config_mod

    try:
        cfg = config_mod.load(None)
    except config_mod.ConfigError as exc:
        sys.stderr.write(f"reflection: configuration error: {exc}\n")
        return 2
    score_jsonl(path, cfg)
    return 0


def score_jsonl(path: str, cfg: Any) -> None:
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
