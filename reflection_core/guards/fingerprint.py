"""Content fingerprints of trees: what the tests ran on, what is staged, what a commit holds.

A fingerprint is a git tree id, so two fingerprints are equal exactly when the
contents are, and `git diff-tree` can name the paths between any two of them.
The working-tree fingerprint covers unstaged and untracked-but-not-ignored
files, through a private index (a copy of the real one kept in the git dir, so git
reuses its stat cache and rehashes only files that changed): `git status` over it
names what changed since it was last brought up to date (with git's untracked cache,
which skips the folders whose stat data did not change), `git add -A` of just those
paths brings it up to date, and the tree id is read from its cache tree or written by
`git write-tree`. The real index is never touched.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Sequence

from reflection_core import paths
from reflection_core.guards import gitcmd

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    Root = str | os.PathLike[str]

# Left out of every fingerprint even when a project does not git-ignore them:
# what test runs, linters and installs write into a tree (counting them would make
# every run change the tree it ran on, or a CI job's tree differ from its commit),
# and dependency/virtualenv dirs (installed state, not source, and slow to hash).
# `.reflection/` holds verdict files written by the Stop hook.
BUILTIN_EXCLUDE: tuple[str, ...] = (
    "__pycache__/",
    "*.py[co]",
    ".pytest_cache/",
    "pytest-cache-files-*/",  # pytest's cache, being written (renamed to .pytest_cache/)
    ".mypy_cache/",
    ".ruff_cache/",
    ".hypothesis/",
    ".coverage",
    ".coverage.*",
    "coverage.xml",
    "htmlcov/",
    "*.egg-info/",
    ".tox/",
    ".nox/",
    ".venv/",
    "node_modules/",
    ".reflection/",
)
# Left out of every fingerprint as *untracked* files only: what building and installing
# a package writes into its checkout (`pip install .` leaves `build/`; `python -m build`
# writes `dist/`) and a virtualenv made in it, which pytest does not collect from either
# (its default norecursedirs). Counting them made a CI job's tree differ from its commit
# whatever it re-ran. Unlike BUILTIN_EXCLUDE they are not ignorable paths: a tracked source
# directory that happens to be named `build/` still needs a test run when it changes, and
# an untracked file left out here can never be in a commit the run is taken to prove.
UNTRACKED_OUTPUT: tuple[str, ...] = ("build/", "dist/", "venv/", "*.egg", ".eggs/", "*.whl")
# The private index and what it was copied from, under the git dir.
PRIVATE_INDEX_DIR: tuple[str, ...] = ("reflection", "fingerprint")
_STATE_VERSION = "v1"
# Git prunes unreachable objects two weeks old, and the blobs of untracked files and the
# trees the private index names are reachable from no ref: a daily fresh copy rewrites
# (and so freshens) them.
_REUSE_SECONDS = 24 * 3600


def user_excludes_file(root: Root) -> Path | None:
    """The global ignore file git uses here (`core.excludesFile`, else the XDG default)."""
    from pathlib import Path

    configured = gitcmd.run(root, ["config", "--path", "--get", "core.excludesFile"], check=False)
    if configured.strip():
        return Path(configured.strip()).expanduser()
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "git" / "ignore"


def excludes_file_text(user_file: Path | None, exclude: Sequence[str]) -> str:
    """The user's global ignore rules plus ours (reflection globs are gitignore lines)."""
    user_text = ""
    if user_file is not None:
        with contextlib.suppress(OSError):
            user_text = user_file.read_text(encoding="utf-8", errors="surrogateescape")
    ours = "\n".join((*BUILTIN_EXCLUDE, *UNTRACKED_OUTPUT, *exclude))
    return f"{user_text}\n# reflection fingerprint excludes\n{ours}\n"


def _real_index_file(root: Root) -> str:
    """The index git would use here: GIT_INDEX_FILE (set inside hooks) or `<git dir>/index`."""
    override = os.environ.get("GIT_INDEX_FILE")
    if override:
        return os.path.join(root, override)  # an absolute override stays as it is
    return os.path.join(paths.git_directory(root), "index")


def worktree_tree(root: Root, exclude: Sequence[str] = (), *, background: bool = False) -> str:
    """Tree id of the working tree as it is now (tracked, modified and untracked files).

    Git-ignored files, BUILTIN_EXCLUDE, UNTRACKED_OUTPUT and `exclude` globs are left
    out: the globs join the user's global ignore rules for this one `git add`, which is
    much faster than exclude pathspecs and skips whole directories. Like any ignore rule
    they apply to untracked files; changes to tracked files there still count (and the
    tests-ran gate treats those paths as ignorable, except UNTRACKED_OUTPUT's).
    """
    return start_worktree_tree(root, background=background).result(exclude)


def start_worktree_tree(root: Root, *, background: bool = False) -> PendingTree:
    """Begin the working tree's fingerprint; `.result(exclude)` finishes it.

    When the private index can be reused, its `git add -A` starts here, before the
    caller has loaded its config: `reflection check tests` imports and reads while git
    scans. Up to git's start only `os` is used (no pathlib, no subprocess): what runs
    before git starts adds to the check's time. `background` keeps git to one thread
    (a test run's scan: see gitcmd.run).
    """
    pending = PendingTree(root, background)
    with contextlib.suppress(OSError):
        pending.start()
    return pending


def temporary_index_tree(root: Root, excludes: str, background: bool = False) -> str:
    """The working tree's id through a throwaway copy of the real index."""
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory(prefix="reflection-index-") as tmp:
        temp_index = Path(tmp) / "index"
        with contextlib.suppress(FileNotFoundError):
            _copy_index(_real_index_file(root), temp_index)
        excludes_file = Path(tmp) / "excludes"
        excludes_file.write_text(excludes, encoding="utf-8", errors="surrogateescape")
        _add_all(root, temp_index, excludes_file, background).wait()
        return _tree_of(root, temp_index, background)


class PendingTree:
    """A working-tree fingerprint through the private index kept in the git dir.

    The private index starts as a copy of the real index and keeps the stat data,
    untracked cache and cache tree git writes into it, so on a tree unchanged since the
    last fingerprint `git status` finds nothing to add and the id is read from the cache
    tree: one git scan, no 4 MB index rewrite, no read of an unchanged folder. It holds
    what `git add -A` into a throwaway copy would: it is copied
    afresh when the real index, `info/exclude` or the ignore rules passed to git
    changed, when a `.gitignore` changed (an untracked file it added earlier may be
    ignored now), and once a day. One process at a time uses it (flock); another
    meanwhile works through a throwaway copy.
    """

    def __init__(self, root: Root, background: bool) -> None:
        self.root, self.background = root, background
        self.store = os.path.join(paths.git_directory(root), *PRIVATE_INDEX_DIR)
        self.index = os.path.join(self.store, "index")
        self.excludes_file = os.path.join(self.store, "excludes")
        self.state_file = os.path.join(self.store, "state")
        self.lock_fd: int | None = None
        self.seed = ""
        self.saved: list[str] = []  # version, seed, tree of the reusable private index
        self.saved_excludes = ""
        self.adding: gitcmd.Running | gitcmd.Spawned | None = None
        # The tree id this scan gives when nothing changed since the last one, if known.
        self.predicted: str | None = None

    def start(self) -> None:
        """Take the private index and, when it can be reused, start `git add -A` into it."""
        self.lock_fd = _try_lock(os.path.join(self.store, "lock"))
        if self.lock_fd is None:
            return
        self.seed = _seed_identity(self.root)
        saved = _read_text(self.state_file).split()
        if (
            len(saved) == 3
            and saved[:2] == [_STATE_VERSION, self.seed]
            and _younger_than(self.state_file, _REUSE_SECONDS)
            and os.path.isfile(self.index)
        ):
            self.saved, self.saved_excludes = saved, _read_text(self.excludes_file)
            try:
                self.adding = _changes(self.root, self.index, self.excludes_file, self.background)
            except gitcmd.GitError:
                return  # `result` runs git again and reports what fails
            self.predicted = saved[2]

    def result(self, exclude: Sequence[str] = ()) -> str:
        """The tree id, with `exclude` and the user's global ignore rules left out."""
        try:
            excludes = excludes_file_text(user_excludes_file(self.root), exclude)
            if self.lock_fd is not None:
                with contextlib.suppress(OSError):
                    return self._private_tree(excludes)
            return temporary_index_tree(self.root, excludes, self.background)
        finally:
            self.cancel()

    def cancel(self) -> None:
        """Stop a `git add` still running and let the private index go."""
        if self.adding is not None:
            self.adding.stop()
            self.adding = None
        if self.lock_fd is not None:
            os.close(self.lock_fd)  # closing releases the flock
            self.lock_fd = None

    def _private_tree(self, excludes: str) -> str:
        root, index, bg = self.root, self.index, self.background
        try:
            reused = False
            if self.adding is not None:
                adding, self.adding = self.adding, None
                changed = _changed_paths(adding.wait())
                reused = self.saved_excludes == excludes  # it looked under these rules
                if reused and changed:
                    _add_paths(root, index, self.excludes_file, changed, bg)
            if not reused:
                self._reseed(excludes)
            tree = _tree_of(root, index, bg, kept=True)
            old = self.saved[2] if reused else ""
            if old and tree != old and _gitignore_changed(root, old, tree):
                reused = False
                self._reseed(excludes)
                tree = _tree_of(root, index, bg, kept=True)
        except gitcmd.GitError:
            with contextlib.suppress(OSError):
                os.unlink(self.state_file)  # the next fingerprint starts from a fresh copy
            return temporary_index_tree(root, excludes, bg)
        if tree != old:
            _write_state(self.state_file, f"{_STATE_VERSION} {self.seed} {tree}\n")
        return tree

    def _reseed(self, excludes: str) -> None:
        """Copy the real index afresh (none when there is none) and add into it."""
        with open(self.excludes_file, "w", encoding="utf-8", errors="surrogateescape") as out:
            out.write(excludes)
        try:
            _copy_index(_real_index_file(self.root), self.index)
        except FileNotFoundError:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.index)
        root, index, excludes_file, bg = self.root, self.index, self.excludes_file, self.background
        changed = _changed_paths(_changes(root, index, excludes_file, bg).wait())
        if changed:
            _add_paths(root, index, excludes_file, changed, bg)


# EOIE tells where the cache tree is in an index file (see guards.indexfile).
_EOIE = ("-c", "index.recordEndOfIndexEntries=true")


def _add_all(
    root: Root, index: Root, excludes_file: Root, background: bool
) -> gitcmd.Running | gitcmd.Spawned:
    """Start `git add -A` of the whole working tree into `index`."""
    add = [*_EOIE, "-c", f"core.excludesFile={excludes_file}", "-c", "advice.addEmbeddedRepo=false"]
    env = {"GIT_INDEX_FILE": os.fspath(index)}
    return gitcmd.spawn(root, [*add, "add", "-A", "--", "."], env=env, background=background)


def _changes(
    root: Root, index: Root, excludes_file: Root, background: bool
) -> gitcmd.Running | gitcmd.Spawned:
    """Start `git status` over the private index: what changed in the working tree since
    it was last added, found with git's untracked cache (a directory whose stat data did
    not change is not read again, the slowest part of `add -A` on a large tree). A
    submodule counts by the commit it has checked out, as in `add -A`."""
    options = ["-c", "core.untrackedCache=true", "-c", f"core.excludesFile={excludes_file}"]
    status = ["status", "--porcelain", "-z", "--no-renames", "--untracked-files=normal"]
    env = {"GIT_INDEX_FILE": os.fspath(index)}
    args = [*_EOIE, *options, *status, "--ignore-submodules=dirty"]
    return gitcmd.spawn(root, args, env=env, background=background, capture=True)


def _changed_paths(status: str) -> list[str]:
    """The paths `git status --porcelain -z` shows changed in the working tree (its
    second column) or untracked (`??`, a whole untracked folder as `dir/`)."""
    return [entry[3:] for entry in status.split("\0") if len(entry) > 3 and entry[1] != " "]


def _add_paths(
    root: Root, index: Root, excludes_file: Root, changed: list[str], background: bool
) -> None:
    """`git add -A` of just the `changed` paths (literal, never globs) into `index`."""
    add = [*_EOIE, "-c", f"core.excludesFile={excludes_file}", "-c", "advice.addEmbeddedRepo=false"]
    args = [*add, "add", "-A", "--pathspec-from-file=-", "--pathspec-file-nul"]
    env = {"GIT_INDEX_FILE": os.fspath(index), "GIT_LITERAL_PATHSPECS": "1"}
    gitcmd.run(root, args, env=env, input="\0".join(changed), background=background)


def _tree_of(root: Root, index: Root, background: bool, *, kept: bool = False) -> str:
    """The tree id of `index`: from its cache tree when valid, else `git write-tree`.

    A `kept` index git did not rewrite (a copy of a real index whose cache tree was
    valid, written without EOIE) is written once more, so the next call reads the id."""
    from reflection_core.guards.indexfile import cached_root_tree

    cached = cached_root_tree(index)
    if cached:
        return cached
    env = {"GIT_INDEX_FILE": os.fspath(index)}
    tree = gitcmd.run(root, [*_EOIE, "write-tree"], env=env, background=background).strip()
    if kept and cached_root_tree(index) != tree:
        force = [*_EOIE, "update-index", "--force-write-index"]
        gitcmd.run(root, force, env=env, background=background)
    return tree


def _copy_index(source: Root, dest: Root) -> None:
    """Copy an index keeping its mtime: git's racy-entry check compares file mtimes with
    it, and a fresh mtime would make git trust stale stat data for files edited in the
    second the index was written. Written beside `dest` and renamed: never torn."""
    import shutil

    folder, name = os.path.split(dest)
    partial = os.path.join(folder, f".{name}.{os.getpid()}.tmp")
    try:
        shutil.copy2(source, partial)
        os.replace(partial, dest)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(partial)


def _gitignore_changed(root: Root, old: str, new: str) -> bool:
    """True when a `.gitignore` differs between trees `old` and `new` (or git cannot tell)."""
    out = gitcmd.run(
        root, ["diff-tree", "-r", "-z", "--no-renames", "--name-only", old, new], check=False
    )
    if not out:
        return True  # two different trees always differ in some path: git failed
    return any(p.rsplit("/", 1)[-1] == ".gitignore" for p in out.split("\0") if p)


def _seed_identity(root: Root) -> str:
    """Stat identities of the real index and `info/exclude`: a change to either (any git
    command that rewrote the index, an edit of the exclude file) means a fresh copy."""
    common = paths.common_git_directory(paths.git_directory(root))
    exclude = os.path.join(common, "info", "exclude")
    return ";".join(_identity(p) for p in (_real_index_file(root), exclude))


def _younger_than(path: str, seconds: float) -> bool:
    import time

    try:
        return time.time() - os.stat(path).st_mtime < seconds
    except OSError:
        return False


def _identity(path: str) -> str:
    try:
        st = os.stat(path)
    except OSError:
        return "-"
    return f"{st.st_mtime_ns}:{st.st_ctime_ns}:{st.st_size}:{st.st_ino}:{st.st_dev}"


def _read_text(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="surrogateescape") as handle:
            return handle.read()
    except OSError:
        return ""


def _write_state(path: str, text: str) -> None:
    """Written beside and renamed; no fsync: a lost state only means a fresh copy."""
    folder, name = os.path.split(path)
    partial = os.path.join(folder, f".{name}.{os.getpid()}.tmp")
    with open(partial, "w", encoding="utf-8") as out:
        out.write(text)
    os.replace(partial, path)


def _try_lock(path: str) -> int | None:
    """An fd holding an exclusive flock on `path` (released when closed or when this
    process ends), or None when another process holds it or flock is unavailable."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        return None
    os.makedirs(os.path.dirname(path), exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    return fd


def dirty_submodules(root: Root) -> list[str]:
    """Submodules whose work tree holds edits or untracked files: a fingerprint holds a
    submodule only as the commit it has checked out, so a run on such a tree tested
    content that no commit holds. Asked of git only where `.gitmodules` exists."""
    if not os.path.isfile(os.path.join(root, ".gitmodules")):
        return []
    listed = gitcmd.run(
        root,
        ["config", "-f", ".gitmodules", "-z", "--get-regexp", r"^submodule\..*\.path$"],
        check=False,
    )
    paths = [entry.split("\n", 1)[1] for entry in listed.split("\0") if "\n" in entry]
    if not paths:
        return []
    status = gitcmd.run(
        root,
        ["status", "--porcelain=v2", "-z", "--ignore-submodules=none", "--", *paths],
        check=False,
    )
    dirty = []
    for entry in status.split("\0"):
        fields = entry.split(" ", 8)
        # `1 XY S<c><m><u> ... <path>`: m, tracked content changed; u, untracked files.
        state = fields[2] if len(fields) == 9 and fields[0] == "1" else ""
        if state[:1] == "S" and (state[2] == "M" or state[3] == "U"):
            dirty.append(fields[8])
    return dirty


def staged_tree(root: Root) -> str:
    """Tree id of what `git commit` would record now (the index, or GIT_INDEX_FILE in hooks)."""
    return gitcmd.run(root, ["write-tree"]).strip()


def commit_tree(root: Root, sha: str) -> str:
    """Tree id of commit `sha`."""
    return gitcmd.run(root, ["rev-parse", "--verify", "--quiet", f"{sha}^{{tree}}"]).strip()
