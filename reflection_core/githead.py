"""Which branch and commit a work tree has checked out, read from git's own files.

The Stop hook records it in each verdict (`git`: the work the verdict is about), and it
must not start a process for that (no `subprocess` on a stop): HEAD, a loose ref or
`packed-refs` answer in well under a millisecond. A repository whose refs git keeps
elsewhere (the reftable format) gives no answer here; the caller may ask git then.
"""

from __future__ import annotations

import os

from reflection_core import paths
from reflection_core.lazyre import lazy

_OID = lazy(r"^(?:[0-9a-f]{40}|[0-9a-f]{64})$")
HEADS = "refs/heads/"


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read(4096)
    except OSError:
        return ""


def head_position(root: str | os.PathLike[str]) -> tuple[str | None, str | None] | None:
    """(branch, commit) checked out at `root`: branch None on a detached HEAD, commit None
    on a branch with no commit yet; None when git's files cannot say (reftable)."""
    gitdir = paths.git_directory(root)
    head = _read(os.path.join(gitdir, "HEAD")).strip()
    if not head.startswith("ref:"):
        return (None, head) if _OID.match(head) else None
    ref = head[len("ref:") :].strip()
    common = paths.common_git_directory(gitdir)
    if os.path.isdir(os.path.join(common, "reftable")):
        return None
    branch = ref[len(HEADS) :] if ref.startswith(HEADS) else None
    return branch, resolve_ref(gitdir, common, ref)


def resolve_ref(gitdir: str, common: str, ref: str) -> str | None:
    """The object id `ref` names: the loose ref file (this worktree's, then the shared
    one), else its `packed-refs` line; None when neither holds it."""
    for base in dict.fromkeys((gitdir, common)):
        text = _read(os.path.join(base, *ref.split("/"))).strip()
        if _OID.match(text):
            return text
    try:
        with open(os.path.join(common, "packed-refs"), encoding="utf-8", errors="replace") as f:
            for line in f:
                oid, _, name = line.rstrip("\n").partition(" ")
                if name == ref and _OID.match(oid):
                    return oid
    except OSError:
        pass
    return None
