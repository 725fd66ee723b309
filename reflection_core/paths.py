"""Where things live: repo root, git dir, verdict dir, per-user state dir.

No subprocess here: the prompt hook resolves paths on every prompt, so the repo
root is found by walking up to `.git` instead of asking git. The prompt hook works
with the string forms (`repo_root_dir`, `state_directory`): importing pathlib costs
it about 3 ms per prompt.
"""

from __future__ import annotations

import os
import stat
import sys

from reflection_core.lazyre import lazy

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

REFLECTION_DIRNAME = ".reflection"
_UNSAFE = lazy(r"[^A-Za-z0-9_-]+")
_MAX_ID_LEN = 80


def find_repo_root(start: str | os.PathLike[str] | None = None) -> Path | None:
    """The nearest ancestor of `start` (default: cwd) holding a `.git` dir or file."""
    from pathlib import Path

    found = repo_root_dir(start)
    return Path(found) if found is not None else None


def repo_root_dir(start: str | os.PathLike[str] | None = None) -> str | None:
    """`find_repo_root` as a string (resolved, links followed), without pathlib."""
    try:
        here = os.path.realpath(start or os.getcwd())
    except (OSError, ValueError):
        return None
    while True:
        if os.path.exists(os.path.join(here, ".git")):
            return here
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def git_dir(root: Path) -> Path:
    """The git dir of a work tree: `.git` itself, or where a `.git` file points (worktrees)."""
    from pathlib import Path

    return Path(git_directory(root))


def git_directory(root: str | os.PathLike[str]) -> str:
    """`git_dir` as a string, without pathlib."""
    dot_git = os.path.join(root, ".git")
    if os.path.isfile(dot_git):
        with open(dot_git, encoding="utf-8", errors="replace") as handle:
            text = handle.read().strip()
        if text.startswith("gitdir:"):
            target = text[len("gitdir:") :].strip()
            if os.path.isabs(target):
                return target
            return os.path.realpath(os.path.join(root, target))
    return dot_git


def common_git_directory(gitdir: str) -> str:
    """The git dir every worktree shares (refs, `info/exclude`): a linked worktree's git
    dir names it in its `commondir` file; a main worktree's is its own."""
    try:
        with open(os.path.join(gitdir, "commondir"), encoding="utf-8", errors="replace") as f:
            pointer = f.read(4096).strip()
    except OSError:
        return gitdir
    return os.path.normpath(os.path.join(gitdir, pointer)) if pointer else gitdir


def reflection_dir(root: Path) -> Path:
    """`<repo root>/.reflection`: verdicts and full records (git-ignored by `reflection init`)."""
    return root / REFLECTION_DIRNAME


VERDICT_PREFIX = "verdict_"


def verdict_path(root: Path, session_id: object) -> Path:
    """Where the verdict of `session_id` lives; the id is made safe, never used as a path."""
    return reflection_dir(root) / f"{VERDICT_PREFIX}{safe_session_id(session_id)}.json"


def verdict_file(root: str, session_id: object) -> str:
    """`verdict_path` as a string, without pathlib."""
    name = f"{VERDICT_PREFIX}{safe_session_id(session_id)}.json"
    return os.path.join(root, REFLECTION_DIRNAME, name)


def state_dir() -> Path:
    """Per-user state (SQLite, caches); `REFLECTION_STATE_DIR` overrides the platform default."""
    from pathlib import Path

    return Path(state_directory())


def state_directory() -> str:
    """`state_dir()` as a string, without pathlib."""
    override = os.environ.get("REFLECTION_STATE_DIR")
    if override:
        return os.path.expanduser(override)
    home = os.path.expanduser("~")
    if sys.platform == "darwin":
        return os.path.join(home, "Library", "Application Support", "reflection")
    if os.name == "nt":
        base = os.environ.get("LOCALAPPDATA") or os.path.join(home, "AppData", "Local")
        return os.path.join(base, "reflection")
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(home, ".local", "state")
    return os.path.join(base, "reflection")


def safe_session_id(raw: object) -> str:
    """A host-provided id made safe as a file-name component, never a path.

    Safe ids pass through unchanged; anything else keeps its safe characters and
    gains a hash of the original so two different unsafe ids never collide.
    """
    text = "" if raw is None else str(raw)
    cleaned = _UNSAFE.sub("_", text).strip("_")[:_MAX_ID_LEN]
    if cleaned and cleaned == text:
        return cleaned
    digest = sha256_hex(text.encode("utf-8", "surrogatepass"))[:12]
    return f"{cleaned}_{digest}" if cleaned else f"anon_{digest}"


_SHA256: Any = None


def sha256_hex(data: bytes) -> str:
    """`hashlib.sha256(data).hexdigest()`, from `builtin_sha256`."""
    return str(builtin_sha256()(data).hexdigest())


def builtin_sha256() -> Any:
    """`hashlib.sha256`, from the interpreter's own SHA-256 when it has one: importing
    hashlib loads OpenSSL, milliseconds of every hook run that hashes a few bytes."""
    global _SHA256
    if _SHA256 is None:
        for module in ("_sha2", "_sha256", "hashlib"):  # 3.12+, 3.10-3.11, any
            try:
                __import__(module)
                _SHA256 = sys.modules[module].sha256
                break
            except (ImportError, AttributeError):
                continue
    return _SHA256


class UnsafePathError(OSError):
    """A path we would write under is a symlink, not a directory, or outside a repository."""


def ensure_dir(anchor: Path, *parts: str) -> Path:
    """`anchor/parts...`, creating missing components, never through a symlink.

    A cloned repository can commit `.reflection` or `.reflection/records` as a link
    to anywhere; following it would let a Stop hook write or delete files there.
    Each component below `anchor` is checked with lstat before it is used.
    """
    current = anchor
    for part in parts:
        current = current / part
        try:
            info = os.lstat(current)
        except FileNotFoundError:
            try:
                os.mkdir(current, 0o755)
            except FileExistsError:
                pass
            info = os.lstat(current)
        if stat.S_ISLNK(info.st_mode):
            raise UnsafePathError(f"{current} is a symlink; refusing to write through it")
        if not stat.S_ISDIR(info.st_mode):
            raise UnsafePathError(f"{current} is not a directory")
    return current


def writable_reflection_dir(root: Path, *parts: str) -> Path:
    """`<root>/.reflection/parts...` for writing: never under `/`, never through a symlink.

    Hooks pass only a repository root here (`hook_root`); tools may pass any project dir.
    """
    if root.parent == root:
        raise UnsafePathError(f"refusing to create {REFLECTION_DIRNAME}/ in the filesystem root")
    return ensure_dir(root, REFLECTION_DIRNAME, *parts)


def hook_root(cwd: object) -> Path | None:
    """The repository root for a hook payload's `cwd` (else the process cwd), or None.

    Hooks write `.reflection/` only at a repository root: a payload naming any other
    directory (`/` included) gets no files written there.
    """
    from pathlib import Path

    found = hook_root_dir(cwd)
    return Path(found) if found is not None else None


def hook_root_dir(cwd: object) -> str | None:
    """`hook_root` as a string, without pathlib."""
    start = cwd if isinstance(cwd, str) and cwd and os.path.isdir(cwd) else None
    root = repo_root_dir(start)
    return root if root is not None and os.path.dirname(root) != root else None
