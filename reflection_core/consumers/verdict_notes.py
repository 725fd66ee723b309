"""Verdicts reach CI as git notes: `refs/notes/reflection` on the pushed commit.

Verdict files live in the git-ignored `.reflection/`, so a CI checkout has none. The
native pre-push hook attaches the newest verdict to each pushed branch tip as a note
and pushes the notes ref to the same remote just before the branch;
`reflection check verdict --ci` fetches the notes ref and reads the note of the commit
CI checked out (or, on a pull request's merge commit, of the pull request's head).
Carrying the verdict never blocks a push: a failure is one line on stderr.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

NOTES_REF = "refs/notes/reflection"


def _git(root: Path, *args: str, input: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", *args], cwd=root, input=input, capture_output=True, text=True, timeout=60
    )


def attach_and_push(root: Path, remote: str, tips: Sequence[str]) -> None:
    """Note the newest verdict on each pushed tip and push the notes ref to `remote`."""
    from reflection_core.consumers.verdict_files import VerdictError, latest_verdict

    try:
        verdict = latest_verdict(root)
    except VerdictError:
        return
    if verdict is None or not tips:
        return
    note = json.dumps(verdict.data, sort_keys=True, ensure_ascii=False)
    changed = False
    for tip in dict.fromkeys(tips):
        current = _git(root, "notes", f"--ref={NOTES_REF}", "show", tip)
        if current.returncode == 0 and current.stdout.strip() == note:
            continue
        added = _git(root, "notes", f"--ref={NOTES_REF}", "add", "-f", "-F", "-", tip, input=note)
        changed = changed or added.returncode == 0
    if not changed:
        return
    pushed = _git(root, "push", "--no-verify", "--quiet", remote, f"{NOTES_REF}:{NOTES_REF}")
    if pushed.returncode != 0:
        sys.stderr.write(
            f"reflection: note: could not push the verdict note to {remote} "
            f"({pushed.stderr.strip()[:200]}); CI's `reflection check verdict` will not see it. "
            f"Push it yourself: git push {remote} {NOTES_REF}\n"
        )


def fetch(root: Path, remote: str = "origin") -> None:
    """Bring the remote's verdict notes into this (CI) clone; quiet when there are none."""
    _git(root, "fetch", "--quiet", remote, f"+{NOTES_REF}:{NOTES_REF}")


def noted_verdict(root: Path) -> tuple[str, bytes] | None:
    """(commit, note) for HEAD, else for HEAD^2 (a pull request's head in its merge commit)."""
    for rev in ("HEAD", "HEAD^2"):
        sha = _git(root, "rev-parse", "-q", "--verify", f"{rev}^{{commit}}")
        if sha.returncode != 0:
            continue
        commit = sha.stdout.strip()
        note = _git(root, "notes", f"--ref={NOTES_REF}", "show", commit)
        if note.returncode == 0 and note.stdout.strip():
            return commit, note.stdout.encode("utf-8")
    return None
