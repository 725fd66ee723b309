"""The Claude Code reader: the user's own login, one headless `claude -p` call, no API key.

Runs `claude -p --model <reader.model, default haiku> --output-format json` with the
facts prompt as the system prompt and the digest (and the turn's trace) on stdin, in an
empty scratch directory, with `--safe-mode` (no hooks, so the call cannot re-enter this
Stop hook; no CLAUDE.md, plugins or MCP servers), no tools and no saved session. The CLI prints
one JSON envelope:

    {"type": "result", "subtype": "success", "is_error": false, "result": "<text>",
     "total_cost_usd": 0.0012, "duration_ms": 2100, "num_turns": 1, "session_id": "...",
     "usage": {"input_tokens": ..., "cache_creation_input_tokens": ...,
               "cache_read_input_tokens": ..., "output_tokens": ...}, ...}

`result` holds the model's answer (JSON facts); an error envelope (`is_error: true`,
or a subtype other than `success`) or a non-zero exit is a failure. A timeout kills
the CLI's whole process group.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reflection_core.reading import process, prompt
from reflection_core.reading.errors import ReaderError
from reflection_core.reading.facts import Reading
from reflection_core.reading.reply import ReplyError, parse_text
from reflection_core.reading.settings import CLAUDE_DEFAULT_MODEL, ReaderSettings

if TYPE_CHECKING:
    from reflection_core.session.trace import Trace

_USAGE_KEYS = (
    "input_tokens",
    "cache_creation_input_tokens",
    "cache_read_input_tokens",
    "output_tokens",
)


def argv(settings: ReaderSettings, trace: Trace | None = None) -> list[str]:
    """The exact command line (the digest and the trace go on stdin, never in argv)."""
    return [
        settings.claude_path,
        "-p",
        "--model",
        settings.model or CLAUDE_DEFAULT_MODEL,
        "--output-format",
        "json",
        "--safe-mode",
        "--tools",
        "",
        "--no-session-persistence",
        "--system-prompt",
        prompt.system_prompt(trace),
    ]


def read(
    digest: dict[str, Any], settings: ReaderSettings, timeout_s: float, trace: Trace | None = None
) -> Reading:
    """Claude's reading of `digest` (and `trace`); raises ReaderError on any failure."""
    model = settings.model or CLAUDE_DEFAULT_MODEL
    stdin = prompt.render_input(digest, trace)
    with tempfile.TemporaryDirectory(prefix="reflection-reader-") as scratch:
        done = process.run(argv(settings, trace), stdin, timeout_s, Path(scratch))
    envelope = parse_envelope(done.stdout)
    if envelope is None:
        detail = done.stderr.strip().splitlines()[-1:] or [done.stdout.strip()[:200]]
        kind = "exit" if done.returncode else "format"
        raise ReaderError(kind, f"claude exited {done.returncode}: {detail[0][:300]}")
    tokens = envelope_tokens(envelope)
    if envelope.get("is_error") or envelope.get("subtype") != "success" or done.returncode:
        reason = str(envelope.get("result") or envelope.get("subtype") or "error")[:300]
        raise ReaderError("exit", f"claude reported an error: {reason}", tokens)
    text = envelope.get("result")
    if not isinstance(text, str):
        raise ReaderError("format", "the claude envelope has no `result` text", tokens)
    source = f"claude:{model}"
    try:
        parsed = parse_text(text, source)
    except ReplyError as exc:
        raise ReaderError("malformed", str(exc), tokens) from None
    cost = envelope.get("total_cost_usd")
    return Reading(
        reader=source,
        facts=parsed.facts,
        cost_tokens=tokens,
        extra={
            "answered": list(parsed.answered),
            "dropped": list(parsed.dropped),
            "ignored_keys": list(parsed.ignored_keys),
            "usd": cost if isinstance(cost, (int, float)) else None,
            "cli_duration_ms": envelope.get("duration_ms"),
        },
    )


def parse_envelope(stdout: str) -> dict[str, Any] | None:
    """The `type: result` object the CLI printed (the last such line), or None."""
    for line in reversed(stdout.strip().splitlines()):
        try:
            data = json.loads(line)
        except ValueError:
            continue
        if isinstance(data, dict) and data.get("type") == "result":
            return data
    return None


def envelope_tokens(envelope: dict[str, Any]) -> int:
    """Every token the call consumed, cache reads and writes included."""
    usage = envelope.get("usage")
    if not isinstance(usage, dict):
        return 0
    return sum(
        v for k in _USAGE_KEYS if isinstance(v := usage.get(k), int) and not isinstance(v, bool)
    )
