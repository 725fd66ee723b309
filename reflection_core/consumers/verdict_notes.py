"""Verdicts reach CI as git notes: `refs/notes/reflection` on the pushed commit.

Verdict files live in the git-ignored `.reflection/`, so a CI checkout has none. The
native pre-push hook attaches to each pushed branch tip, as a note, the newest verdict
about that work (recorded on that branch at a commit the tip is or descends from)
and pushes the notes ref to the same remote just before the branch, merging the notes
teammates pushed there first (else the second teammate's push is non-fast-forward);
`reflection check verdict --ci` fetches the notes ref and reads the note of the commit
CI checked out (or, on a pull request's merge commit, of the pull request's head).
Carrying the verdict never blocks a push and is bounded in time: a failure is a warning.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import Any

from reflection_core.consumers.verdict_files import Verdict
from reflection_core.lazyre import lazy
from reflection_core.records import record

NOTES_REF = "refs/notes/reflection"
_OID = lazy(r"^(?:[0-9a-f]{40}|[0-9a-f]{64})$")


INCOMING = "refs/notes/reflection-incoming"  # the remote's notes, fetched to merge
PUSH_ATTEMPTS = 2  # fetch, merge, push; once more when a teammate pushed in between
PUSH_SECONDS = 30.0  # all the git calls of carrying the note: the user's push waits for them


def _git(
    root: Path, *args: str, input: str | None = None, timeout: float = 60.0
) -> subprocess.CompletedProcess[str]:
    """git's result; a git that cannot run or outlives `timeout` is a failed call (124)."""
    try:
        return subprocess.run(
            ["git", *args],
            cwd=root,
            input=input,
            capture_output=True,
            text=True,
            timeout=max(timeout, 1.0),
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return subprocess.CompletedProcess(["git", *args], 124, "", f"{type(exc).__name__}")


@record(frozen=True)
class PushedTip:
    """A pushed branch tip and the branch names it goes by (local and remote)."""

    tip: str
    branches: frozenset[str]


def claimed_base(data: Mapping[str, Any], tip: str, branches: Collection[str]) -> str | None:
    """The commit `tip` must be or descend from for this verdict to answer for its push, or
    None when it cannot: a verdict answers for the branch it was written on (its `git`
    position), or, written on a detached HEAD, for that very commit. A verdict with no
    position answers for nothing."""
    position = data.get("git")
    if not isinstance(position, Mapping):
        return None
    head, branch = position.get("head"), position.get("branch")
    if not isinstance(head, str) or not head:
        return None
    if branch is None:
        return head if head == tip else None
    return head if branch in branches else None


def verdict_for(root: Path, pushed: PushedTip, verdicts: Sequence[Verdict]) -> Verdict | None:
    """The newest verdict (`verdicts` is newest first) that answers for `pushed`."""
    for verdict in verdicts:
        base = claimed_base(verdict.data, pushed.tip, pushed.branches)
        if base is None:
            continue
        if (
            base == pushed.tip
            or _git(root, "merge-base", "--is-ancestor", base, pushed.tip).returncode == 0
        ):
            return verdict
    return None


def _descends(root: Path, tip: str, base: str) -> bool:
    return _git(root, "merge-base", "--is-ancestor", base, tip).returncode == 0


def attach_and_push(root: Path, remote: str, pushed: Sequence[PushedTip]) -> None:
    """Note on each pushed tip the newest verdict of its work and push the notes ref to
    `remote`; a tip no verdict answers for gets none (CI then says so)."""
    from reflection_core.consumers.verdict_files import list_verdicts

    verdicts, _ = list_verdicts(root)
    if not verdicts:
        return
    changed = False
    for target in dict.fromkeys(pushed):
        verdict = verdict_for(root, target, verdicts)
        if verdict is None:
            continue
        note = json.dumps(verdict.data, sort_keys=True, ensure_ascii=False)
        changed = _note(root, target.tip, note) or changed
        tree = _git(root, "rev-parse", "-q", "--verify", f"{target.tip}^{{tree}}").stdout
        if tree.strip():  # a squash merge of this tip has its tree (note_candidates)
            changed = _note(root, tree.strip(), note) or changed
    if not changed:
        return
    failure = push_notes(root, remote, time.monotonic() + PUSH_SECONDS)
    if failure is not None:
        sys.stderr.write(
            f"reflection: note: could not push the verdict note to {remote} ({failure}); "
            "CI's `reflection check verdict` will not see it. Push it yourself:\n"
            f"    {manual_push(remote)}\n"
        )


def _note(root: Path, obj: str, note: str) -> bool:
    """Attach `note` to `obj` unless it already holds it; True when the notes ref changed."""
    current = _git(root, "notes", f"--ref={NOTES_REF}", "show", obj)
    if current.returncode == 0 and current.stdout.strip() == note:
        return False
    added = _git(root, "notes", f"--ref={NOTES_REF}", "add", "-f", "-F", "-", obj, input=note)
    return added.returncode == 0


def manual_push(remote: str) -> str:
    """The commands that land this clone's notes on `remote` by hand, teammates' kept."""
    return (
        f"git fetch {remote} +{NOTES_REF}:{INCOMING} ; "
        f"git notes --ref={NOTES_REF} merge -s ours {INCOMING} ; "
        f"git push {remote} {NOTES_REF}"
    )


def push_notes(root: Path, remote: str, deadline: float) -> str | None:
    """Push the notes ref, first merging what teammates pushed there (each commit keeps one
    note; on the same commit ours wins: it is the verdict just attached). None when it
    landed, else git's reason. Never longer than `deadline` (a monotonic time)."""
    reason = "no time left"
    for _ in range(PUSH_ATTEMPTS):
        left = deadline - time.monotonic()
        if left <= 0:
            break
        fetched = _git(root, "fetch", "--quiet", remote, f"+{NOTES_REF}:{INCOMING}", timeout=left)
        if fetched.returncode == 0:
            merge = ("notes", f"--ref={NOTES_REF}", "merge", "--quiet", "-s", "ours", INCOMING)
            merged = _git(root, *merge, timeout=deadline - time.monotonic())
            if merged.returncode != 0:
                return _reason(merged.stderr) or "the notes merge failed"
        push = ("push", "--no-verify", "--quiet", remote, f"{NOTES_REF}:{NOTES_REF}")
        pushed = _git(root, *push, timeout=deadline - time.monotonic())
        if pushed.returncode == 0:
            return None
        reason = _reason(pushed.stderr) or f"git push exited {pushed.returncode}"
    return reason


def _reason(stderr: str) -> str:
    """git's message, one line: its last lines hold the reason (`(fetch first)`)."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    return " / ".join(lines[-3:])[-300:]


def fetch(root: Path, remote: str = "origin") -> None:
    """Bring the remote's verdict notes into this (CI) clone; quiet when there are none."""
    _git(root, "fetch", "--quiet", remote, f"+{NOTES_REF}:{NOTES_REF}")


def noted_verdicts(root: Path) -> list[tuple[str, bytes]]:
    """(object, note) for every note found on what CI checked out, in the order of
    note_candidates: HEAD, a merge's other parents, the event's pull request head, and
    last HEAD's tree (the pushed tip's tree is noted too, so a squash merge of an
    up-to-date pull request, which has that same tree, finds the verdict)."""
    head = _git(root, "rev-parse", "-q", "--verify", "HEAD^{commit}").stdout.strip()
    if not head:
        return []
    raw = _git(root, "cat-file", "commit", head).stdout
    found = []
    for obj in note_candidates(head, raw, _event(os.environ.get("GITHUB_EVENT_PATH"))):
        note = _git(root, "notes", f"--ref={NOTES_REF}", "show", obj)
        if note.returncode == 0 and note.stdout.strip():
            found.append((obj, note.stdout.encode("utf-8")))
    return found


def note_candidates(head: str, raw_commit: str, event: Mapping[str, Any]) -> list[str]:
    """Objects whose note may hold the verdict, best first. A merge's parents are read
    from the commit object itself: a depth-1 checkout (actions/checkout's default) has
    the merge commit but not its parents, and a note is found by id alone."""
    header = raw_commit.split("\n\n", 1)[0].splitlines()
    parents = [line.split()[1] for line in header if line.startswith("parent ")]
    tree = next((line.split()[1] for line in header if line.startswith("tree ")), None)
    pull = event.get("pull_request")
    pr_head = pull.get("head") if isinstance(pull, Mapping) else None
    pr_sha = pr_head.get("sha") if isinstance(pr_head, Mapping) else None
    found = [head, *parents[1:], *([pr_sha] if isinstance(pr_sha, str) else []), tree]
    return [obj for obj in dict.fromkeys(found) if obj and _OID.match(obj)]


def _event(path: str | None) -> Mapping[str, Any]:
    """The GitHub Actions event payload, or {} when there is none to read."""
    if not path:
        return {}
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}
