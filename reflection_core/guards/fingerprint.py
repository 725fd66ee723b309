"""Content fingerprints of trees: what the tests ran on, what is staged, what a commit holds.

A fingerprint is a git tree id, so two fingerprints are equal exactly when the
contents are, and `git diff-tree` can name the paths between any two of them.
The working-tree fingerprint covers unstaged and untracked-but-not-ignored
files: it copies the real index to a temporary one (so git reuses its stat cache
and rehashes only files that changed), runs `git add -A` into it and writes the
tree. The real index is never touched.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Sequence
from pathlib import Path

from reflection_core import paths
from reflection_core.guards import gitcmd

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


def user_excludes_file(root: Path) -> Path | None:
    """The global ignore file git uses here (`core.excludesFile`, else the XDG default)."""
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
    ours = "\n".join((*BUILTIN_EXCLUDE, *exclude))
    return f"{user_text}\n# reflection fingerprint excludes\n{ours}\n"


def real_index_path(root: Path) -> Path:
    """The index git would use here: GIT_INDEX_FILE (set inside hooks) or `<git dir>/index`."""
    override = os.environ.get("GIT_INDEX_FILE")
    if override:
        candidate = Path(override)
        return candidate if candidate.is_absolute() else root / candidate
    return paths.git_dir(root) / "index"


def worktree_tree(root: Path, exclude: Sequence[str] = (), *, background: bool = False) -> str:
    """Tree id of the working tree as it is now (tracked, modified and untracked files).

    Git-ignored files, BUILTIN_EXCLUDE and `exclude` globs are left out: the globs
    join the user's global ignore rules for this one `git add`, which is much faster
    than exclude pathspecs and skips whole directories. Like any ignore rule they
    apply to untracked files; changes to tracked files there still count (and the
    tests-ran gate treats those paths as ignorable).
    """
    import shutil
    import tempfile

    with tempfile.TemporaryDirectory(prefix="reflection-index-") as tmp:
        temp_index = Path(tmp) / "index"
        source = real_index_path(root)
        with contextlib.suppress(FileNotFoundError):
            # copy2 keeps the index's mtime: git's racy-entry check compares file
            # mtimes with it, and a fresh mtime would make git trust stale stat data
            # for files edited in the same second the index was written.
            shutil.copy2(source, temp_index)
        excludes = Path(tmp) / "excludes"
        excludes.write_text(
            excludes_file_text(user_excludes_file(root), exclude),
            encoding="utf-8",
            errors="surrogateescape",
        )
        env = {"GIT_INDEX_FILE": str(temp_index)}
        add = ["-c", f"core.excludesFile={excludes}", "-c", "advice.addEmbeddedRepo=false"]
        gitcmd.run(root, [*add, "add", "-A", "--", "."], env=env, background=background)
        return gitcmd.run(root, ["write-tree"], env=env, background=background).strip()


def staged_tree(root: Path) -> str:
    """Tree id of what `git commit` would record now (the index, or GIT_INDEX_FILE in hooks)."""
    return gitcmd.run(root, ["write-tree"]).strip()


def commit_tree(root: Path, sha: str) -> str:
    """Tree id of commit `sha`."""
    return gitcmd.run(root, ["rev-parse", "--verify", "--quiet", f"{sha}^{{tree}}"]).strip()
