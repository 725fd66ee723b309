"""Crash-safe file writes: temp file + fsync + rename, and locked line appends.

None of them follows a symlink: the temp file is created exclusively, the rename
replaces a link rather than writing through it, locks and appends open with
O_NOFOLLOW, and the parent directory itself must not be a link. A hostile
repository can commit links where we write; it must not redirect our writes.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
from collections.abc import Iterator
from pathlib import Path

from reflection_core.paths import UnsafePathError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def _ensure_parent(path: Path) -> None:
    """Create `path`'s parent; refuse when the parent is a symlink."""
    parent = path.parent
    parent.mkdir(parents=True, exist_ok=True)
    if stat.S_ISLNK(os.lstat(parent).st_mode):
        raise UnsafePathError(f"{parent} is a symlink; refusing to write through it")


def open_nofollow(path: Path, flags: int, mode: int = 0o644) -> int:
    """os.open that refuses a symlink at `path` (ELOOP becomes UnsafePathError)."""
    try:
        return os.open(path, flags | _NOFOLLOW, mode)
    except OSError as exc:
        if os.path.islink(path):
            raise UnsafePathError(f"{path} is a symlink; refusing to open it") from exc
        raise


def write_text_atomic(path: Path, text: str) -> None:
    """Replace `path` with `text` so readers see the old or the new file, never a torn one."""
    _ensure_parent(path)
    fd, tmp = _create_temp(path)
    try:
        # The temp file is created 0600; give it the mode a plain open() would have.
        os.fchmod(fd, 0o666 & ~_umask())
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _create_temp(path: Path) -> tuple[int, str]:
    """A new file beside `path`, created exclusively and not through a link: what
    `tempfile.mkstemp` does, without importing tempfile (and random) in every hook."""
    for _ in range(100):
        tmp = str(path.parent / f".{path.name}.{os.urandom(6).hex()}.tmp")
        try:
            return os.open(tmp, os.O_RDWR | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o600), tmp
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name beside {path}")


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current


def write_json_atomic(path: Path, data: Any) -> None:
    text = json.dumps(data, indent=2, sort_keys=False, ensure_ascii=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate from the host's JSON: escape it
        text = json.dumps(data, indent=2, sort_keys=False, ensure_ascii=True)
    write_text_atomic(path, text + "\n")


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """An exclusive advisory lock on `path` + '.lock' (no-op where flock is unavailable)."""
    _ensure_parent(path)
    lock_path = path.with_name(path.name + ".lock")
    fd = open_nofollow(lock_path, os.O_RDWR | os.O_CREAT)
    try:
        try:
            import fcntl
        except ImportError:  # pragma: no cover - Windows
            yield
            return
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def append_line(path: Path, line: str) -> None:
    """Append one line with a single O_APPEND write under the file's lock."""
    data = (line.rstrip("\n") + "\n").encode("utf-8", "replace")
    with locked(path):
        fd = open_nofollow(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
        try:
            os.write(fd, data)
        finally:
            os.close(fd)


def unlink_own_file(path: Path) -> bool:
    """Delete `path` only when it is a regular file (not a link) owned by this user."""
    try:
        info = os.lstat(path)
    except OSError:
        return False
    if not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid():
        return False
    try:
        os.unlink(path)
    except OSError:
        return False
    return True
