"""Crash-safe file writes: temp file + fsync + rename, and locked line appends.

None of them follows a symlink: the temp file is created exclusively, the rename
replaces a link rather than writing through it, locks and appends open with
O_NOFOLLOW, and the parent directory itself must not be a link. A hostile
repository can commit links where we write; it must not redirect our writes.
"""

from __future__ import annotations

import json
import os
import stat

from reflection_core.paths import UnsafePathError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    PathLike = str | os.PathLike[str]

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


# Paths are taken as str or os.PathLike and handled with os.path: a hook that writes a
# verdict or appends a line need not import pathlib.


def _ensure_parent(path: PathLike) -> None:
    """Create `path`'s parent; refuse when the parent is a symlink."""
    parent = os.path.dirname(os.fspath(path)) or "."
    os.makedirs(parent, exist_ok=True)
    if stat.S_ISLNK(os.lstat(parent).st_mode):
        raise UnsafePathError(f"{parent} is a symlink; refusing to write through it")


def open_nofollow(path: PathLike, flags: int, mode: int = 0o644) -> int:
    """os.open that refuses a symlink at `path` (ELOOP becomes UnsafePathError)."""
    try:
        return os.open(path, flags | _NOFOLLOW, mode)
    except OSError as exc:
        if os.path.islink(path):
            raise UnsafePathError(f"{path} is a symlink; refusing to open it") from exc
        raise


def write_text_atomic(path: PathLike, text: str) -> None:
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
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _create_temp(path: PathLike) -> tuple[int, str]:
    """A new file beside `path`, created exclusively and not through a link: what
    `tempfile.mkstemp` does, without importing tempfile (and random) in every hook."""
    parent, name = os.path.split(os.fspath(path))
    for _ in range(100):
        tmp = os.path.join(parent, f".{name}.{os.urandom(6).hex()}.tmp")
        try:
            return os.open(tmp, os.O_RDWR | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o600), tmp
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name beside {path}")


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current


def write_json_atomic(path: PathLike, data: Any) -> None:
    text = json.dumps(data, indent=2, sort_keys=False, ensure_ascii=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate from the host's JSON: escape it
        text = json.dumps(data, indent=2, sort_keys=False, ensure_ascii=True)
    write_text_atomic(path, text + "\n")


class locked:  # lower case: used as a function, `with locked(path):`
    """An exclusive advisory lock on `path` + '.lock' (no-op where flock is unavailable)."""

    def __init__(self, path: PathLike) -> None:
        self.lock_path = os.fspath(path) + ".lock"
        self.fd = -1
        _ensure_parent(path)

    def __enter__(self) -> None:
        self.fd = open_nofollow(self.lock_path, os.O_RDWR | os.O_CREAT)
        try:
            import fcntl
        except ImportError:  # pragma: no cover - Windows
            return
        try:
            fcntl.flock(self.fd, fcntl.LOCK_EX)
        except BaseException:
            os.close(self.fd)
            raise

    def __exit__(self, *exc_info: object) -> None:
        try:
            try:
                import fcntl
            except ImportError:  # pragma: no cover - Windows
                return
            fcntl.flock(self.fd, fcntl.LOCK_UN)
        finally:
            os.close(self.fd)


def append_line(path: PathLike, line: str) -> None:
    """Append one line with a single O_APPEND write under the file's lock.

    The line starts on a line of its own: when the file's last line was cut off (a
    writer killed mid-write), a newline ends it first, so the new line is not glued
    to the torn one and skipped with it."""
    data = (line.rstrip("\n") + "\n").encode("utf-8", "replace")
    with locked(path):
        fd = open_nofollow(path, os.O_RDWR | os.O_APPEND | os.O_CREAT)
        try:
            if not _ends_a_line(fd):
                data = b"\n" + data
            os.write(fd, data)
        finally:
            os.close(fd)


def _ends_a_line(fd: int) -> bool:
    """The open file is empty or its last byte is a newline (read under the caller's lock)."""
    if os.fstat(fd).st_size == 0:
        return True
    os.lseek(fd, -1, os.SEEK_END)
    return os.read(fd, 1) == b"\n"


def unlink_own_file(path: PathLike) -> bool:
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
