"""Read a host transcript file into the normalized `Session` of its current task.

The imperative shell of the session reader: files, bytes, encodings. Decisions
about what a record means live in normalize.py (Claude Code) and
codex_rollout.py (Codex); this module only finds the right records cheaply.

Cost grows with the current task, not with the session: the file is read
backwards in blocks until the last real user prompt (plus a small look-back for
earlier prompts and compaction) is found. A 200 MB session whose last task is
small reads about as fast as a 1 MB one (benchmarks/bench_stop.py).

Reads are bounded: only regular files are opened (a FIFO or device would block
the hook), without blocking; at most `max_task_bytes` plus a look-back are read
for one task, and each byte is copied a constant number of times, so one huge
line costs what its bytes cost (benchmarks/bench_adversarial.py).

Memory grows with what the session keeps, not with the task's bytes: a long tool
output is capped as its record is decoded, a short line is held as read (bytes cost
less than the record they decode to) until the session is built from the records in
one pass, and each record is freed once the session has taken its part of it.

Never raises for I/O or format problems: a missing file, a truncated last line,
garbage lines or non-UTF-8 bytes become `Session.warnings`.
"""

from __future__ import annotations

import errno
import json
import os
import stat
from collections.abc import Callable, Iterator
from pathlib import Path

from reflection_core.session import normalize
from reflection_core.session.model import Session

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, BinaryIO

BLOCK_BYTES = 256 * 1024
DEFAULT_MAX_TASK_BYTES = 64 * 1024 * 1024
LOOKBACK_BYTES = 512 * 1024  # after the task start: room for earlier prompts and compaction
SPILL_READ_CHARS = normalize.OUTPUT_HEAD_CHARS + normalize.OUTPUT_TAIL_CHARS
_SNIFF_BYTES = 64 * 1024
_USER = b'"user"'  # in every user record's line (`"type":"user"`), so in every prompt's
_MALFORMED = " malformed line(s) skipped"
RAW_LINE_BYTES = 2048  # a Claude Code line this short is kept as read until the session is built
_SNIFF_LIMIT = 8 * 1024 * 1024  # Codex puts AGENTS.md into its first record

if TYPE_CHECKING:
    RoleOf = Callable[[Any], str]


def read_session(
    path: str | os.PathLike[str] | None,
    *,
    last_assistant_message: str | None = None,
    session_id: str | None = None,
    max_task_bytes: int = DEFAULT_MAX_TASK_BYTES,
    transcript_format: str | None = None,
) -> Session:
    """The current task of the session in `path`.

    `transcript_format` is the host adapter's choice (claude, codex, gemini); None
    tells Claude Code JSONL and Codex rollouts apart by their first records (offline
    tools that are handed a file without its host).
    """
    if not path:
        return _empty("no transcript path was given", session_id, last_assistant_message)
    file_path = Path(path)
    try:
        handle = open_regular(file_path)
    except OSError as exc:
        reason = f"transcript not readable ({type(exc).__name__}): {file_path}"
        return _empty(reason, session_id, last_assistant_message)
    with handle:
        try:
            if transcript_format == "gemini":
                return _read_gemini(handle, last_assistant_message, session_id, max_task_bytes)
            return _read(
                handle,
                file_path,
                last_assistant_message,
                session_id,
                max_task_bytes,
                transcript_format,
            )
        except OSError as exc:
            reason = f"transcript read failed ({type(exc).__name__}): {file_path}"
            return _empty(reason, session_id, last_assistant_message)


def open_regular(path: Path) -> BinaryIO:
    """Open `path` for reading without blocking; OSError unless it is a regular file."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file", str(path))
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _read(
    handle: BinaryIO,
    file_path: Path,
    last_assistant_message: str | None,
    session_id: str | None,
    max_task_bytes: int,
    transcript_format: str | None,
) -> Session:
    warnings: list[str] = []
    head = _head_records(handle) if transcript_format != "codex" else []
    if transcript_format is None:
        transcript_format = "codex" if any(_is_rollout(r) for r in head) else "claude"
    if transcript_format == "codex":
        from reflection_core.session import codex_rollout

        records, _ = _task_records(
            handle, codex_rollout.rollout_record_role, max_task_bytes, warnings
        )
        session = codex_rollout.session_from_rollout_records(
            records, session_id=session_id, last_assistant_message=last_assistant_message
        )
    else:
        conversation = [r for r in head if r.get("type") in ("user", "assistant")]
        sidechain_file = bool(conversation) and conversation[0].get("isSidechain") is True

        def role(record: Any) -> normalize.RecordRole:
            return normalize.record_role(record, sidechain_file=sidechain_file)

        records, roles = _task_records(
            handle,
            role,
            max_task_bytes,
            warnings,
            raw_below=RAW_LINE_BYTES,
            shrink=normalize.slim_tool_results,
        )
        stem_session = session_id or file_path.stem
        session = normalize.session_from_records(
            _decoded(records, warnings),
            roles=roles,
            session_id=session_id,
            last_assistant_message=last_assistant_message,
            resolve_spill=_spill_resolver(file_path, stem_session),
            sidechain_file=sidechain_file,
        )
    session.warnings[:0] = warnings
    return session


def _read_gemini(
    handle: BinaryIO, last_assistant_message: str | None, session_id: str | None, limit: int
) -> Session:
    """A Gemini CLI chat file is folded whole (later lines update earlier messages)."""
    from reflection_core.session import gemini_chat

    data = handle.read(limit + 1)
    warnings = [f"chat file larger than {limit} bytes; read only its start"][: len(data) > limit]
    records = [r for r in (_parse(line) for line in data[:limit].split(b"\n")) if r is not None]
    session = gemini_chat.session_from_chat_records(
        records, session_id=session_id, last_assistant_message=last_assistant_message
    )
    session.warnings[:0] = warnings
    return session


def _is_rollout(record: Any) -> bool:
    """A Codex rollout record. Every one has a `payload` object and no Claude Code record
    has: the Codex reader is loaded only for a record that may be one."""
    if not (isinstance(record, dict) and isinstance(record.get("payload"), dict)):
        return False
    from reflection_core.session.codex_rollout import is_rollout_record

    return is_rollout_record(record)


def _empty(reason: str, session_id: str | None, last_message: str | None) -> Session:
    session = normalize.session_from_records(
        [], session_id=session_id, last_assistant_message=last_message
    )
    session.warnings = [reason]
    return session


def _head_records(handle: BinaryIO) -> list[Any]:
    """The first complete records of the file, to tell the formats apart."""
    handle.seek(0)
    chunks = [handle.read(_SNIFF_BYTES)]
    read = len(chunks[0])
    while b"\n" not in chunks[-1] and read < _SNIFF_LIMIT:  # a long first record
        more = handle.read(_SNIFF_BYTES)
        if not more:
            break
        chunks.append(more)
        read += len(more)
    lines = b"".join(chunks).split(b"\n")
    if len(lines) > 1:
        lines = lines[:-1]  # the last one may be cut by the sniff window
    return [r for r in (_parse(line) for line in lines[:20]) if r is not None]


def _task_records(
    handle: BinaryIO,
    role_of: RoleOf,
    max_task_bytes: int,
    warnings: list[str],
    *,
    raw_below: int = 0,
    shrink: Callable[[Any], None] | None = None,
) -> tuple[list[Any], list[Any]]:
    """Records from shortly before the last real prompt to the end, in file order, with
    their roles. To hold less of a long task at once, a line shorter than `raw_below`
    bytes is kept as it was read (a decoded record costs several times its line; see
    `_decoded`), and a longer one is passed through `shrink` once decoded."""
    handle.seek(0, os.SEEK_END)
    size = handle.tell()
    collected: list[Any] = []
    roles: list[Any] = []  # role_of of each record (a RecordRole for Claude Code)
    bad_lines = 0
    start_found_at: int | None = None
    floor = max(0, size - max_task_bytes - LOOKBACK_BYTES)
    for offset, line, unterminated in _reverse_lines(handle, size, floor):
        consumed = size - offset
        if start_found_at is None and consumed > max_task_bytes:
            warnings.append(f"no task start in the last {max_task_bytes} bytes; read only those")
            break
        if start_found_at is not None and consumed - start_found_at > LOOKBACK_BYTES:
            break
        if len(line) < raw_below and not unterminated and _USER not in line:
            # Not a user record, so not the task's prompt: kept as read, its role is read
            # when `_decoded` decodes it in file order, and it is decoded once.
            if line.strip():
                collected.append(line)
                roles.append(None)
            continue
        record = _parse(line)
        if record is None:
            if unterminated:
                warnings.append("the last line is truncated or still being written; skipped")
            elif line.strip():
                bad_lines += 1
            continue
        role = role_of(record)
        if len(line) < raw_below:
            collected.append(line)
        else:
            if shrink is not None:
                shrink(record)
            collected.append(record)
        roles.append(role)
        if start_found_at is None and role == "prompt":
            start_found_at = consumed
    else:
        if start_found_at is None and floor > 0:
            warnings.append(f"no task start in the last {max_task_bytes} bytes; read only those")
    _count_malformed(warnings, bad_lines)
    collected.reverse()
    roles.reverse()
    return collected, roles


def _decoded(items: list[Any], warnings: list[str]) -> Iterator[Any]:
    """The records `_task_records` kept, in order, each line kept as read decoded now.
    Each leaves `items` as it is handed on: once the session has taken what it keeps
    of a record, the record is freed, and the task is never held twice over. A kept line
    that is no record stands as an empty one, and is counted in `warnings`."""
    bad = 0
    for index, item in enumerate(items):
        items[index] = None
        record = _parse(item) if isinstance(item, bytes) else item
        bad += record is None
        yield {} if record is None else record
    _count_malformed(warnings, bad)


def _count_malformed(warnings: list[str], bad: int) -> None:
    """Add `bad` to the warning that counts malformed lines (one warning, whichever pass
    found them)."""
    if not bad:
        return
    for index, text in enumerate(warnings):
        if text.endswith(_MALFORMED):
            warnings[index] = f"{int(text.split()[0]) + bad}{_MALFORMED}"
            return
    warnings.append(f"{bad}{_MALFORMED}")


def _reverse_lines(
    handle: BinaryIO, size: int, floor: int = 0
) -> Iterator[tuple[int, bytes, bool]]:
    """(start offset, line, unterminated) from the end of the file back to `floor`.

    `unterminated` is true only for a final line with no newline after it: the
    writer may still be writing it. A line that starts before `floor` is not
    yielded. The pieces of a line that spans blocks are joined once, so the cost
    is linear in the bytes read however long the line.
    """
    position = size
    pieces: list[bytes] = []  # the end of a line that began in an earlier block, last first
    unterminated = True
    while position > floor:
        step = min(BLOCK_BYTES, position - floor)
        position -= step
        handle.seek(position)
        block = handle.read(step)
        end = len(block)
        cut = block.rfind(b"\n", 0, end)
        while cut != -1:
            line = block[cut + 1 : end]
            if pieces:
                pieces.append(line)
                line = b"".join(reversed(pieces))
                pieces = []
            end = cut
            cut = block.rfind(b"\n", 0, end)
            if unterminated and not line:  # the file ends with a newline
                unterminated = False
                continue
            yield position + end + 1, line, unterminated
            unterminated = False
        pieces.append(block[:end])
    if position == 0 and any(pieces):
        yield 0, b"".join(reversed(pieces)), unterminated


def _parse(line: bytes) -> Any:
    """One JSONL line as a JSON object, or None; bad UTF-8 is replaced, not fatal."""
    text = line.strip()
    if not text:
        return None
    try:
        record = json.loads(text.decode("utf-8", errors="replace"))
    except (ValueError, RecursionError):  # RecursionError: absurdly deep nesting
        return None
    return record if isinstance(record, dict) else None


def _spill_resolver(transcript: Path, session_stem: str) -> normalize.SpillResolver:
    """Fetch a tool result Claude Code saved under `<session>/tool-results/` (best effort)."""

    def resolve(saved_path: str, tool_use_id: str) -> str | None:
        candidates = [Path(saved_path.strip())]
        if tool_use_id:
            name = f"{normalize_id(tool_use_id)}.txt"
            candidates.append(transcript.parent / session_stem / "tool-results" / name)
        for candidate in candidates:
            if candidate.parent.name == "tool-results" and candidate.is_file():
                return _read_head_tail(candidate)
        return None

    return resolve


def normalize_id(raw: str) -> str:
    """A tool-use id as a file name: only its safe characters."""
    return "".join(c for c in raw if c.isalnum() or c in "_-")


def _read_head_tail(path: Path) -> str | None:
    """Head and tail of a possibly huge file, without reading the middle."""
    half = SPILL_READ_CHARS // 2
    try:
        with open_regular(path) as handle:
            handle.seek(0, os.SEEK_END)
            size = handle.tell()
            handle.seek(0)
            if size <= SPILL_READ_CHARS * 4:
                return handle.read().decode("utf-8", errors="replace")
            head = handle.read(half * 4)
            handle.seek(size - half * 4)
            tail = handle.read()
    except OSError:
        return None
    return normalize.cap_output(
        head.decode("utf-8", errors="replace") + "\n" + tail.decode("utf-8", errors="replace")
    )
