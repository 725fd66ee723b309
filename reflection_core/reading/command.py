"""The command reader: a program the user configured reads the digest and reports facts.

`reader.command` is an argv list (a string is split as a shell would split it; no shell
ever runs it). The command gets one JSON object on stdin:

    {"digest": {...}, "kinds": {"<kind>": "<meaning>", ...},
     "builtin": [{"kind": ..., "confidence": ..., "quote": ...}, ...],
     "trace": {"calls": [...], "omitted_calls": n, "final_message": ..., "text": ...}}

(`trace`, the turn's condensed trace, only when `reader.trace_tokens` > 0; `kinds` then
lists the kinds only the turn can show)
and prints `{"facts": [{"kind", "confidence", "quote"}, ...]}` on stdout, optionally with
`"tokens": <int>` (what it spent, for the budget). A non-zero exit, a timeout (the
process group is killed) or output of the wrong shape falls back to the built-in reading.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from reflection_core.reading import process, prompt
from reflection_core.reading.errors import ReaderError
from reflection_core.reading.facts import Reading
from reflection_core.reading.reply import ReplyError, parse_reply
from reflection_core.reading.settings import ReaderSettings

if TYPE_CHECKING:
    from reflection_core.session.trace import Trace


def stdin_payload(digest: dict[str, Any], builtin: Reading, trace: Trace | None = None) -> str:
    data: dict[str, Any] = {
        "digest": prompt.digest_payload(digest),
        "kinds": prompt.kinds_asked(trace),
        "builtin": [
            {"kind": f.kind, "confidence": f.confidence, "quote": f.quote} for f in builtin.facts
        ],
    }
    if trace is not None:
        data["trace"] = trace.payload()
    return json.dumps(data, ensure_ascii=False)


def read(
    digest: dict[str, Any],
    builtin: Reading,
    settings: ReaderSettings,
    timeout_s: float,
    trace: Trace | None = None,
) -> Reading:
    """The command's reading of `digest` (and `trace`); raises ReaderError on any failure."""
    if not settings.command:
        raise ReaderError("config", "reader.kind is command but reader.command is empty")
    argv = list(settings.command)
    done = process.run(argv, stdin_payload(digest, builtin, trace), timeout_s, settings.root)
    if done.returncode != 0:
        tail = done.stderr.strip().splitlines()[-1:] or [""]
        raise ReaderError("exit", f"{argv[0]} exited {done.returncode}: {tail[0][:300]}")
    try:
        data = json.loads(done.stdout)
    except ValueError:
        raise ReaderError("malformed", "the command's output is not JSON") from None
    tokens = data.get("tokens", 0) if isinstance(data, dict) else 0
    tokens = tokens if isinstance(tokens, int) and not isinstance(tokens, bool) else 0
    source = "command"
    try:
        parsed = parse_reply(data, source)
    except ReplyError as exc:
        raise ReaderError("malformed", str(exc), tokens) from None
    return Reading(
        reader=source,
        facts=parsed.facts,
        cost_tokens=max(0, tokens),
        extra={
            "answered": list(parsed.answered),
            "dropped": list(parsed.dropped),
            "ignored_keys": [k for k in parsed.ignored_keys if k != "tokens"],
        },
    )
