"""Host hook protocol plumbing: read the JSON payload, render the response, fail open.

Every host we serve sends one JSON object on stdin and reads JSON from stdout;
the host adapter (hosts/) turns a handler's `Reply` into a `HookResponse`, and
this module writes it: bytes, flushing, exit codes.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from typing import Any, BinaryIO, TextIO

MAX_PAYLOAD_BYTES = 16 * 1024 * 1024


class PayloadError(ValueError):
    """The hook input is not a JSON object; the message says what was wrong."""


@dataclass
class HookResponse:
    """What a hook answers: JSON for stdout (or nothing), stderr text, exit code."""

    output: dict[str, Any] | None = None
    stderr: str = ""
    exit_code: int = 0
    notes: list[str] = field(default_factory=list)


def parse_payload(raw: bytes) -> dict[str, Any]:
    """Decode host input; non-UTF-8 bytes are replaced, never fatal."""
    if len(raw) > MAX_PAYLOAD_BYTES:
        raise PayloadError(f"hook input is {len(raw)} bytes, more than {MAX_PAYLOAD_BYTES}")
    text = raw.decode("utf-8", errors="replace").strip()
    if not text:
        raise PayloadError("hook input is empty (expected a JSON object on stdin)")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise PayloadError(f"hook input is not valid JSON: {exc.msg} at char {exc.pos}") from None
    if not isinstance(data, dict):
        raise PayloadError(f"hook input is JSON {type(data).__name__}, expected an object")
    return data


def read_payload(stream: BinaryIO | None = None) -> dict[str, Any]:
    source = stream if stream is not None else sys.stdin.buffer
    return parse_payload(source.read(MAX_PAYLOAD_BYTES + 1))


def render(
    response: HookResponse, stdout: TextIO | None = None, stderr: TextIO | None = None
) -> int:
    """Write the response and flush before the process exits."""
    out = stdout or sys.stdout
    err = stderr or sys.stderr
    if response.output is not None:
        # ASCII escapes keep the output valid whatever the input held (lone surrogates
        # from a JSON "\ud800" would make a UTF-8 write raise).
        out.write(json.dumps(response.output, ensure_ascii=True) + "\n")
    out.flush()
    if response.stderr:
        text = response.stderr.rstrip("\n").encode("utf-8", "replace").decode("utf-8")
        err.write(text + "\n")
    err.flush()
    return response.exit_code
