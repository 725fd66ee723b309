"""Running git: one small function so every guard calls git the same way.

Guards run inside git hooks, where git exports GIT_DIR/GIT_INDEX_FILE and friends;
`run` passes the environment through unless told otherwise, never uses a shell,
and raises GitError with git's own message when a command fails. `subprocess` is
imported when git first runs: a Stop hook that needs no git does not load it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

TYPE_CHECKING = False
if TYPE_CHECKING:
    import subprocess
    from collections.abc import Callable
    from pathlib import Path
    from typing import Any, TypeVar

    T = TypeVar("T")

ZERO_IDS = frozenset({"0" * 40, "0" * 64})


class GitError(RuntimeError):
    """A git command failed; the message carries the command and git's stderr."""


def run(
    root: str | os.PathLike[str],
    args: Sequence[str],
    *,
    env: Mapping[str, str] | None = None,
    input: str | None = None,
    check: bool = True,
    background: bool = False,
) -> str:
    """`git -C root ARGS` and its stdout (text, surrogate-escaped for odd bytes).

    `background` keeps git to one thread (`core.preloadIndex=false`), for work that
    overlaps something the user is waiting on, such as a test run: git then never takes
    more than one core from it. Not `nice`: on a busy machine a niced scan barely runs
    while the tests do, and the run then waits for it at the end.
    """
    proc = start(root, args, env=env, input=input, background=background)
    return proc.wait(check=check)


def start(
    root: str | os.PathLike[str],
    args: Sequence[str],
    *,
    env: Mapping[str, str] | None = None,
    input: str | None = None,
    background: bool = False,
) -> Running:
    """Start `git -C root ARGS` without waiting for it (see `run`); `.wait()` finishes it.

    An `input` that fits a pipe's buffer is written now, so git works on it at once;
    a longer one is written by `.wait()`, which reads git's output meanwhile."""
    import subprocess

    full_env = dict(os.environ)
    if env:
        full_env.update(env)
    try:
        proc = subprocess.Popen(
            ["git", "-c", "core.quotePath=false", *_threads(background), *args],
            cwd=root,
            env=full_env,
            stdin=subprocess.PIPE if input is not None else None,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            errors="surrogateescape",
        )
    except OSError as exc:
        raise GitError(f"cannot run git: {exc}") from None
    running = Running(proc, args)
    fits = input is not None and len(input.encode("utf-8", "surrogateescape")) <= _PIPE_BUFFER
    if fits and proc.stdin is not None:
        try:
            proc.stdin.write(input or "")
            proc.stdin.close()
        except OSError:
            pass  # git exited early: `wait` reports how
        proc.stdin = None  # written: `communicate` has nothing more to send
    else:
        running.input = input
    return running


_PIPE_BUFFER = 4096  # bytes any pipe takes without a reader (POSIX PIPE_BUF)


class Running:
    """A git process started by `start`."""

    def __init__(self, proc: subprocess.Popen[str], args: Sequence[str]) -> None:
        self.proc, self.args = proc, args
        self.input: str | None = None  # still to write

    def wait(self, *, check: bool = True) -> str:
        """Its stdout once it exits; GitError with git's message when it failed and `check`."""
        out, err = self.proc.communicate(self.input)
        if check and self.proc.returncode != 0:
            message = err.strip() or f"exit status {self.proc.returncode}"
            raise GitError(f"git {' '.join(self.args)}: {message}")
        return out

    def stop(self) -> None:
        """End it if it still runs (git removes its lock files on SIGTERM) and reap it."""
        if self.proc.poll() is None:
            self.proc.terminate()
        self.proc.communicate()


def spawn(
    root: str | os.PathLike[str],
    args: Sequence[str],
    *,
    env: Mapping[str, str] | None = None,
    background: bool = False,
    capture: bool = False,
) -> Running | Spawned:
    """`start` without importing `subprocess`: `reflection check tests` starts its scan
    this way, so git works while this process imports what it needs next (subprocess and
    pathlib cost about 10 ms before git would start). `.wait()` gives git's stdout when
    `capture`, else "" (stdout goes to /dev/null). Falls back to `start` without
    posix_spawn."""
    if not hasattr(os, "posix_spawnp"):  # pragma: no cover - not POSIX
        return start(root, args, env=env, background=background)
    import signal

    full_env = dict(os.environ)
    if env:
        full_env.update(env)
    argv = ["git", "-C", os.fspath(root), "-c", "core.quotePath=false", *_threads(background)]
    err_read, err_write = os.pipe()
    out_read, out_write = os.pipe() if capture else (-1, -1)
    stdout: tuple[Any, ...] = (
        (os.POSIX_SPAWN_DUP2, out_write, 1)
        if capture
        else (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0)
    )
    actions = [stdout, (os.POSIX_SPAWN_DUP2, err_write, 2)]
    try:
        pid = os.posix_spawnp(
            "git", [*argv, *args], full_env, file_actions=actions, setsigdef=(signal.SIGPIPE,)
        )
    except OSError as exc:
        for fd in (err_read, out_read):
            if fd >= 0:
                os.close(fd)
        raise GitError(f"cannot run git: {exc}") from None
    finally:
        for fd in (err_write, out_write):
            if fd >= 0:
                os.close(fd)
    return Spawned(pid, err_read, args, out_read)


class Spawned:
    """A git process started by `spawn`: its stderr is read when it is waited for."""

    def __init__(self, pid: int, stderr_fd: int, args: Sequence[str], stdout_fd: int = -1) -> None:
        self.pid, self.stderr_fd, self.args, self.stdout_fd = pid, stderr_fd, args, stdout_fd
        self.returncode: int | None = None

    def wait(self, *, check: bool = True) -> str:
        """Its stdout (or "" when not captured) once it exits; GitError with git's message
        when it failed and `check`."""
        out, err = self._read_all() if self.returncode is None else (b"", b"")
        self._reap()
        if check and self.returncode != 0:
            message = err.decode("utf-8", "surrogateescape").strip()
            message = message or f"exit status {self.returncode}"
            raise GitError(f"git {' '.join(self.args)}: {message}")
        return out.decode("utf-8", "surrogateescape")

    def _read_all(self) -> tuple[bytes, bytes]:
        """Both pipes to their end, whichever git writes first (neither can fill and stall it)."""
        import select

        chunks: dict[int, list[bytes]] = {self.stdout_fd: [], self.stderr_fd: []}
        open_fds = [fd for fd in chunks if fd >= 0]
        while open_fds:
            for fd in select.select(open_fds, [], [])[0]:
                chunk = os.read(fd, 65536)
                if chunk:
                    chunks[fd].append(chunk)
                else:
                    open_fds.remove(fd)
        return b"".join(chunks[self.stdout_fd]), b"".join(chunks[self.stderr_fd])

    def stop(self) -> None:
        """End it if it still runs (git removes its lock files on SIGTERM) and reap it."""
        if self.returncode is not None:
            return
        pid, status = os.waitpid(self.pid, os.WNOHANG)
        if pid == 0:
            import signal

            os.kill(self.pid, signal.SIGTERM)
            _, status = os.waitpid(self.pid, 0)
        self._reaped(status)

    def _reap(self) -> None:
        if self.returncode is None:
            self._reaped(os.waitpid(self.pid, 0)[1])

    def _reaped(self, status: int) -> None:
        self.returncode = os.waitstatus_to_exitcode(status)
        for fd in (self.stderr_fd, self.stdout_fd):
            if fd >= 0:
                os.close(fd)


def in_thread(compute: Callable[..., T], *args: Any) -> Callable[[], T]:
    """Start `compute(*args)` (work that runs git processes) in a daemon thread; the
    returned call waits for it and gives its result or raises its exception.

    Git works in its own process, so while it scans a large tree this process can
    import and read what it needs next, or run the tests the scan fingerprints.
    """
    import threading

    outcome: list[Any] = []

    def work() -> None:
        try:
            outcome.append(compute(*args))
        except BaseException as exc:  # handed to the caller, who handles or raises it
            outcome.append(exc)

    worker = threading.Thread(target=work, daemon=True)
    worker.start()

    def wait() -> T:
        worker.join()
        if isinstance(outcome[0], BaseException):
            raise outcome[0]
        return outcome[0]

    return wait


def _threads(background: bool) -> list[str]:
    return ["-c", "core.preloadIndex=false"] if background else []


def succeeds(root: Path, args: Sequence[str]) -> bool:
    """True when `git ARGS` exits 0 (output discarded)."""
    import subprocess

    try:
        proc = subprocess.run(
            ["git", *args], cwd=root, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
    except OSError:
        return False
    return proc.returncode == 0


def current_branch(root: Path) -> str | None:
    """The checked-out branch's short name, or None on a detached HEAD."""
    out = run(root, ["symbolic-ref", "-q", "--short", "HEAD"], check=False).strip()
    return out or None


def is_zero(sha: str) -> bool:
    """True for git's all-zero object id (SHA-1 or SHA-256)."""
    return sha in ZERO_IDS or (len(sha) in (40, 64) and set(sha) == {"0"})
