"""Reading a small file the agent's side of a repository could have replaced: a verdict
file that is a link to /dev/zero, a FIFO or a gigabyte must not hang or exhaust a hook."""

from __future__ import annotations

import errno
import os
import stat

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

# What a hook reads of a verdict at most (a verdict is a few KB).
VERDICT_LIMIT = 4 * 1024 * 1024


class NotReadable(OSError):
    """Not a file to read: a symbolic link, not a regular file, or larger than allowed."""


def read_small(path: str | Path, limit: int = VERDICT_LIMIT) -> bytes:
    """The bytes of the regular file at `path`, never through a symbolic link; NotReadable
    for anything else or anything larger than `limit` (checked before reading), OSError
    when it cannot be read at all."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise NotReadable("a symbolic link, not a regular file; not read") from None
        raise
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotReadable("not a regular file; not read")
        if info.st_size > limit:
            raise NotReadable(f"{info.st_size} bytes, larger than a verdict can be")
        chunks: list[bytes] = []
        left = limit + 1
        while left > 0 and (chunk := os.read(fd, min(left, 1 << 20))):
            chunks.append(chunk)
            left -= len(chunk)
        if left <= 0:
            raise NotReadable(f"grew past {limit} bytes while read")
        return b"".join(chunks)
    finally:
        os.close(fd)
