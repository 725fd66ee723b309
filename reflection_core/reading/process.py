"""Running a reader process: argv only (never a shell), stdin in, a hard timeout.

The process starts in its own process group so that a timeout kills it and everything
it started (a CLI's node workers, a script's children), not just the first pid.
"""

from __future__ import annotations

import os
import signal
import subprocess
from dataclasses import dataclass
from pathlib import Path

from reflection_core.reading.errors import ReaderError

MAX_OUTPUT_BYTES = 1_000_000


@dataclass(frozen=True)
class Finished:
    returncode: int
    stdout: str
    stderr: str


def run(
    argv: list[str],
    stdin_text: str,
    timeout_s: float,
    cwd: str | Path | None = None,
    env: dict[str, str] | None = None,
) -> Finished:
    """Run `argv` to completion within `timeout_s`; ReaderError on timeout or a missing program."""
    if timeout_s <= 0:
        raise ReaderError("timeout", "no time left for the reader")
    try:
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env=env,
            start_new_session=True,
        )
    except FileNotFoundError:
        raise ReaderError("missing", f"{argv[0]!r} is not installed or not on PATH") from None
    except OSError as exc:
        raise ReaderError("missing", f"cannot start {argv[0]!r}: {exc.strerror}") from None
    try:
        out, err = proc.communicate(stdin_text.encode("utf-8"), timeout=timeout_s)
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        name = Path(argv[0]).name
        raise ReaderError("timeout", f"{name} gave no answer within {timeout_s:g}s") from None
    except BaseException:
        _kill_group(proc)
        raise
    return Finished(
        proc.returncode,
        out[:MAX_OUTPUT_BYTES].decode("utf-8", errors="replace"),
        err[-4000:].decode("utf-8", errors="replace"),
    )


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    """Kill the reader's whole process group and reap it."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.communicate(timeout=5)
    except (subprocess.TimeoutExpired, ValueError, OSError):
        pass
