"""Reading a small file the agent's side of a repository could have replaced: a verdict
file that is a link to /dev/zero, a FIFO or a gigabyte must not hang or exhaust a hook."""

from __future__ import annotations

import os
import stat

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

# What a hook reads of a verdict at most (a verdict is a few KB).
VERDICT_LIMIT = 4 * 1024 * 1024


def read_small(path: str | Path, limit: int = VERDICT_LIMIT) -> bytes:
    """The bytes of the regular file at `path`, never through a symbolic link; OSError for
    anything else or anything larger than `limit` (checked before reading)."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    fd = os.open(path, flags)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
            raise OSError(f"{path}: not a regular file of at most {limit} bytes")
        chunks: list[bytes] = []
        left = limit + 1
        while left > 0 and (chunk := os.read(fd, min(left, 1 << 20))):
            chunks.append(chunk)
            left -= len(chunk)
        if left <= 0:
            raise OSError(f"{path}: grew past {limit} bytes while read")
        return b"".join(chunks)
    finally:
        os.close(fd)
