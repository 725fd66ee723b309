"""Host hook protocol plumbing: read the JSON payload, render the response, fail open.

Every host we serve sends one JSON object on stdin and reads JSON from stdout;
the host adapter (hosts/) turns a handler's `Reply` into a `HookResponse`, and
this module writes it: bytes, flushing, exit codes, and the hook's own deadline.
"""

from __future__ import annotations

import json
import os
import re
import sys

from reflection_core.records import field, record

TYPE_CHECKING = False
if TYPE_CHECKING:
    import signal
    from typing import Any, TextIO
else:
    try:  # the `signal` module is this plus enums it builds at import, 0.5 ms of every hook
        import _signal as signal
    except ImportError:
        import signal

MAX_PAYLOAD_BYTES = 16 * 1024 * 1024
MAX_DEPTH = 64
DEFAULT_DEADLINE_S = 25.0  # below the hosts' usual 30 s hook timeout
DEADLINE_ENV = "REFLECTION_HOOK_DEADLINE"


def env_deadline_seconds() -> float | None:
    """`REFLECTION_HOOK_DEADLINE` in seconds (0 turns the deadline off; a bad value is the
    default), or None when it is not set and the config decides."""
    raw = os.environ.get(DEADLINE_ENV)
    if raw is None:
        return None
    try:
        return max(float(raw), 0.0)
    except ValueError:
        return DEFAULT_DEADLINE_S


class PayloadError(ValueError):
    """The hook input is not a JSON object; the message says what was wrong."""


@record
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
    except RecursionError:
        raise PayloadError("hook input is JSON nested too deeply to read") from None
    if not isinstance(data, dict):
        raise PayloadError(f"hook input is JSON {type(data).__name__}, expected an object")
    return _clean(data, MAX_DEPTH)


def _clean(value: Any, depth: int) -> Any:
    """`value` with lone surrogates replaced in every string (keys too); PayloadError when
    nested deeper than `depth`. Handlers never see text they cannot encode."""
    if isinstance(value, str):
        return _clean_text(value)
    if depth <= 0 and isinstance(value, (dict, list)):
        raise PayloadError(f"hook input is JSON nested deeper than {MAX_DEPTH} levels")
    if isinstance(value, dict):
        return {_clean_text(key): _clean(item, depth - 1) for key, item in value.items()}
    if isinstance(value, list):
        return [_clean(item, depth - 1) for item in value]
    return value


def _clean_text(text: str) -> str:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        # U+FFFD, not "?": a replaced character must not read as a question.
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return text


def salvage_fields(raw: bytes) -> dict[str, str]:
    """`session_id` and `cwd` from input that failed to parse, when a shallow look finds
    them as plain strings: enough to leave a `skipped` verdict where the host looks."""
    found: dict[str, str] = {}
    text = raw[:MAX_PAYLOAD_BYTES].decode("utf-8", errors="replace")
    for key in ("session_id", "cwd", "prompt_id"):
        match = re.search(r'"' + key + r'"\s{0,8}:\s{0,8}"((?:[^"\\\n]|\\.){0,4096})"', text)
        if match:
            try:
                found[key] = _clean_text(json.loads(f'"{match.group(1)}"'))
            except ValueError:
                continue
    return found


class HookDeadline(BaseException):
    """The hook's own deadline passed; raised from a signal handler so `except Exception`
    in optional steps cannot swallow it."""


class deadline:
    """Raise HookDeadline in the main thread after `seconds` (no-op where SIGALRM is missing
    or off the main thread). Interrupts Python code and blocking system calls alike.
    A class rather than a contextlib generator: contextlib is not on the hooks' path."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.armed = False
        self.expired = False  # set even when the raise lands where Python ignores it
        self.previous: Any = None

    def __enter__(self) -> None:
        if self.seconds <= 0 or not hasattr(signal, "setitimer"):
            return
        try:
            self.previous = signal.signal(signal.SIGALRM, self.expire)
        except ValueError:  # not the main thread, where no signal handler can run
            return
        self.armed = True
        signal.setitimer(signal.ITIMER_REAL, self.seconds)

    def __exit__(self, *exc_info: object) -> None:
        if self.armed:
            self.armed = False
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self.previous)

    def expire(self, signum: int, frame: Any) -> None:
        """Raise in the main thread. A signal that lands in a finalizer (a `__del__`, a
        weakref callback) has its exception printed and dropped by Python: `expired`
        still tells the caller, so a guard that must fail closed can check it."""
        self.expired = True
        raise HookDeadline(self.message())

    def message(self) -> str:
        return f"the hook's own deadline of {self.seconds:g}s passed"


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
