"""Read, list and wait for compact verdict files (`<repo>/.reflection/verdict_<session>.json`).

The stop hook writes verdicts; everything here only reads them. A notifier and the
stop hook usually run in parallel on the same event, so "the verdict for this
stop" means a verdict written after `since` and not older than
`verdict.stale_seconds`: `is_fresh` is that rule as a pure function, and
`wait_for_verdict` polls until it holds (and the caller's `accept` agrees) or the
timeout passes. Either process may start first, so the notifier moves `since` a
grace window before its own start and lets `accept` skip verdicts it already
handled (`notify_ledger`).

Verdict files are untrusted input (an agent can write or commit them): a reader takes
only regular files of at most MAX_VERDICT_BYTES (checked before reading), shallow JSON,
and never a verdict dated more than MAX_CLOCK_SKEW_SECONDS ahead of its own clock (a
verdict "from the future" would otherwise be the newest, and fresh, forever).
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from reflection_core import paths
from reflection_core.terminal import printable

VERDICT_PREFIX = paths.VERDICT_PREFIX
MAX_VERDICT_BYTES = 4 * 1024 * 1024
MAX_VERDICT_DEPTH = 32  # a verdict nests 3 levels (gates -> gate -> evidence)
MAX_CLOCK_SKEW_SECONDS = 300.0  # a verdict dated further ahead than this is not believed
STATUSES = ("complete", "incomplete", "blocked", "waiting_for_user", "skipped")


class VerdictError(ValueError):
    """A verdict file that cannot be used; the message names the file and the problem."""


@dataclass(frozen=True)
class Verdict:
    """One compact verdict file as read from disk."""

    path: Path
    data: dict[str, Any]
    created_at: datetime

    @property
    def session_id(self) -> str:
        return str(self.data.get("session_id") or "")

    @property
    def status(self) -> str:
        return str(self.data.get("status") or "")

    @property
    def complete(self) -> bool:
        return self.data.get("complete") is True

    @property
    def missing(self) -> list[str]:
        return _str_list(self.data.get("missing"))

    @property
    def next_actions(self) -> list[str]:
        return _str_list(self.data.get("next_actions"))


def _str_list(value: Any) -> list[str]:
    if not isinstance(value, list):
        return []
    return [str(item) for item in value if isinstance(item, (str, int, float))]


def parse_timestamp(text: Any) -> datetime:
    """An ISO 8601 timestamp as an aware UTC datetime (a bare time is taken as UTC)."""
    if not isinstance(text, str) or not text:
        raise ValueError("created_at is missing")
    cleaned = text.strip()
    if cleaned.endswith(("Z", "z")):
        cleaned = cleaned[:-1] + "+00:00"
    moment = datetime.fromisoformat(cleaned)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.astimezone(timezone.utc)


def parse_verdict(raw: bytes, path: Path) -> Verdict:
    """Validate the fields consumers rely on; anything else is left as written."""
    if len(raw) > MAX_VERDICT_BYTES:
        raise VerdictError(f"{path}: {len(raw)} bytes, larger than a verdict can be")
    try:
        data = json.loads(raw.decode("utf-8", errors="replace"))
    except json.JSONDecodeError as exc:
        raise VerdictError(f"{path}: not valid JSON ({exc.msg} at char {exc.pos})") from None
    except RecursionError:
        raise VerdictError(f"{path}: JSON nested too deeply to be a verdict") from None
    if not isinstance(data, dict):
        raise VerdictError(f"{path}: expected a JSON object, got {type(data).__name__}")
    if nesting(data) > MAX_VERDICT_DEPTH:
        raise VerdictError(f"{path}: JSON nested deeper than {MAX_VERDICT_DEPTH} levels")
    status = data.get("status")
    if status not in STATUSES:
        raise VerdictError(f"{path}: status {status!r} is not one of {', '.join(STATUSES)}")
    if not isinstance(data.get("complete"), bool):
        raise VerdictError(f"{path}: 'complete' must be true or false")
    try:
        created_at = parse_timestamp(data.get("created_at"))
    except ValueError as exc:
        raise VerdictError(f"{path}: bad created_at: {exc}") from None
    return Verdict(path=path, data=data, created_at=created_at)


def nesting(value: Any) -> int:
    """How deeply lists and objects nest in `value` (a scalar is 0), counted without
    recursion; the count stops once it passes MAX_VERDICT_DEPTH."""
    deepest = 0
    pending: list[tuple[Any, int]] = [(value, 1)]
    while pending and deepest <= MAX_VERDICT_DEPTH:
        item, depth = pending.pop()
        if isinstance(item, dict):
            children: Collection[Any] = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        deepest = max(deepest, depth)
        pending.extend((child, depth + 1) for child in children)
    return deepest


def future_problem(verdict: Verdict, now: float) -> str | None:
    """Why a verdict dated ahead of `now` (beyond clock skew) is not believed, or None."""
    ahead = verdict.created_at.timestamp() - now
    if not ahead > MAX_CLOCK_SKEW_SECONDS:
        return None
    return (
        f"{verdict.path}: created_at {verdict.created_at.isoformat()} is {ahead:.0f}s in the "
        f"future (more than the {MAX_CLOCK_SKEW_SECONDS:g}s of clock skew allowed)"
    )


def read_bounded(path: Path, limit: int = MAX_VERDICT_BYTES) -> bytes:
    """The bytes of the regular file at `path` (never through a symbolic link), refused
    before reading when larger than `limit` (see smallfile.read_small)."""
    from reflection_core.smallfile import NotReadable, read_small

    try:
        return read_small(path, limit)
    except NotReadable as exc:
        raise VerdictError(f"{path}: {exc}") from None
    except OSError as exc:
        raise VerdictError(f"{path}: cannot read: {exc.strerror}") from None


def read_verdict(path: Path, *, now: float | None = None) -> Verdict:
    """The verdict at `path`; VerdictError when it is unusable or dated in the future."""
    verdict = parse_verdict(read_bounded(path), path)
    problem = future_problem(verdict, time.time() if now is None else now)
    if problem:
        raise VerdictError(problem)
    return verdict


def list_verdicts(root: Path, *, ignore: Collection[str] = ()) -> tuple[list[Verdict], list[str]]:
    """Every readable verdict of the repo, newest first, and a problem line per file
    skipped (broken, not a regular file, dated in the future); file names in `ignore`
    are not read at all."""
    directory = paths.reflection_dir(root)
    verdicts: list[Verdict] = []
    problems: list[str] = []
    try:
        candidates = sorted(directory.glob(f"{VERDICT_PREFIX}*.json"))
    except OSError:
        return [], []
    now = time.time()
    for candidate in candidates:
        if candidate.name in ignore:
            continue
        try:
            verdicts.append(read_verdict(candidate, now=now))
        except VerdictError as exc:
            problems.append(str(exc))
    verdicts.sort(key=lambda v: v.created_at, reverse=True)
    return verdicts, problems


def newest_verdict(
    root: Path, session_id: str | None = None, *, ignore: Collection[str] = ()
) -> tuple[Verdict | None, list[str]]:
    """latest_verdict, with the problem lines of the files skipped on the way (a session's
    own file that is unusable raises VerdictError instead)."""
    if session_id:
        path = paths.verdict_path(root, session_id)
        if path.name in ignore or not os.path.lexists(path):
            return None, []
        return read_verdict(path), []
    verdicts, problems = list_verdicts(root, ignore=ignore)
    return (verdicts[0] if verdicts else None), problems


def latest_verdict(
    root: Path, session_id: str | None = None, *, ignore: Collection[str] = ()
) -> Verdict | None:
    """The verdict of `session_id`, or the newest verdict of the repo when no session is given."""
    return newest_verdict(root, session_id, ignore=ignore)[0]


def is_fresh(
    verdict: Verdict, *, now: float, stale_seconds: float, since: float | None = None
) -> bool:
    """Written for this stop: not older than `stale_seconds`, and not before `since`.

    Writers may round `created_at` to whole seconds, so `since` is compared at
    second resolution: a verdict from the same second as the reader's start counts.
    A verdict dated more than MAX_CLOCK_SKEW_SECONDS ahead of `now` is never fresh.
    """
    created = verdict.created_at.timestamp()
    if now - created > stale_seconds or future_problem(verdict, now):
        return False
    return since is None or created >= int(since)


def wait_for_verdict(
    root: Path,
    session_id: str | None,
    *,
    since: float,
    timeout: float,
    stale_seconds: float,
    poll_interval: float = 0.2,
    clock: Callable[[], float] = time.time,
    sleep: Callable[[float], None] = time.sleep,
    accept: Callable[[Verdict], bool] | None = None,
) -> Verdict | None:
    """Poll until a fresh verdict for the session (any session when None) appears
    that `accept` (when given) takes. `timeout` must be finite."""
    if not math.isfinite(timeout):
        raise ValueError(f"timeout must be a finite number of seconds, not {timeout}")
    deadline = clock() + max(timeout, 0.0)
    while True:
        candidate = _newest_readable(root, session_id)
        if (
            candidate is not None
            and is_fresh(candidate, now=clock(), stale_seconds=stale_seconds, since=since)
            and (accept is None or accept(candidate))
        ):
            return candidate
        remaining = deadline - clock()
        if remaining <= 0:
            return None
        sleep(min(poll_interval, remaining))


def _newest_readable(root: Path, session_id: str | None) -> Verdict | None:
    """Like latest_verdict, but a file caught mid-write or broken reads as 'not yet'."""
    try:
        return latest_verdict(root, session_id)
    except VerdictError:
        return None


def summary_line(verdict: Verdict) -> str:
    """One human line: status, session, age of the verdict and what is missing."""
    missing = verdict.missing
    tail = f" — missing: {'; '.join(missing[:3])}" if missing else ""
    when = verdict.created_at.strftime("%Y-%m-%d %H:%M:%SZ")
    return printable(f"{verdict.status:<16} {verdict.session_id or '?':<24} {when}{tail}")


def check_verdict(session: str | None, ci: bool) -> int:
    """`reflection check verdict [--ci]`: 0 when the verdict is complete, 1 otherwise.

    With `ci`, verdict files git tracks are not read: in CI a file in the checkout that
    git tracks came with the commit, so whoever pushed it wrote it. What counts there is a
    file written in the job itself (untracked) or the git note the pre-push hook attached.
    """
    root = paths.find_repo_root()
    if root is None:
        return _fail("not inside a git repository; run this from the repo the agent worked in", ci)
    ignore = _ignored_in_ci(root) if ci else frozenset()
    try:
        verdict, problems = newest_verdict(root, session, ignore=ignore)
        for problem in problems:
            _say(f"skipped {problem}")
        if verdict is None and ci:
            verdict = _noted(root, session)
    except VerdictError as exc:
        return _fail(f"the verdict file is unusable: {exc}", ci)
    if verdict is None:
        return _fail(_nothing_found(root, session, ci), ci)
    if verdict.complete:
        sys.stdout.write(_one_line(f"verdict complete ({verdict.session_id})") + "\n")
        return 0
    reasons = "; ".join(verdict.missing) or "no reason recorded"
    steps = "; ".join(verdict.next_actions)
    message = f"verdict for session {verdict.session_id} is {verdict.status}: {reasons}"
    if steps:
        message += f". Next: {steps}"
    return _fail(message, ci)


def _nothing_found(root: Path, session: str | None, ci: bool) -> str:
    which = f"for session {session!r} " if session else ""
    return (
        f"no verdict {which}under {paths.reflection_dir(root)}"
        + (
            " nor as a git note (refs/notes/reflection) on this commit, a merged pull "
            "request's head or this tree (a squash merge of a branch that was behind "
            "its base has none)"
            if ci
            else ""
        )
        + "; the stop hook writes one when the agent stops (`reflection init --claude` "
        "registers it) and the pre-push hook `reflection init` installs sends it with a "
        "push of the branch the agent worked on"
    )


def committed_verdict_names(ls_files_z: bytes) -> frozenset[str] | None:
    """The verdict file names `git ls-files -z -- .reflection` lists (run at the repo
    root), or None when `.reflection` itself is committed (a link or a submodule: then
    git lists no file under it, yet every file there came with the commit)."""
    names = set()
    for entry in ls_files_z.decode("utf-8", errors="surrogateescape").split("\0"):
        if entry == paths.REFLECTION_DIRNAME:
            return None
        parent, _, name = entry.rpartition("/")
        if parent == paths.REFLECTION_DIRNAME and name.startswith(VERDICT_PREFIX):
            names.add(name)
    return frozenset(names)


def _ignored_in_ci(root: Path) -> frozenset[str]:
    """The verdict files `check verdict --ci` must not read: those git tracks (one
    `git ls-files` call); every one when git cannot tell or `.reflection` is committed."""
    directory = paths.reflection_dir(root)
    present = frozenset(p.name for p in directory.glob(f"{VERDICT_PREFIX}*.json"))
    if not present:
        return present
    why = "came with the commit"
    try:
        listed = subprocess.run(
            ["git", "ls-files", "-z", "--", paths.REFLECTION_DIRNAME],
            cwd=root,
            capture_output=True,
            timeout=60,
        )
        tracked = committed_verdict_names(listed.stdout) if listed.returncode == 0 else None
        if listed.returncode != 0:
            why = "could not be told apart from committed ones (git ls-files failed)"
    except (OSError, subprocess.TimeoutExpired) as exc:
        tracked, why = None, f"could not be told apart from committed ones ({exc})"
    if tracked is None or directory.is_symlink():
        tracked = present
    ignored = present & tracked
    if ignored:
        _say(
            f"note: not reading {len(ignored)} verdict file(s) that {why} "
            f"({', '.join(sorted(ignored))}): in CI a verdict counts only when this job "
            "wrote it or the pre-push hook attached it as a git note (refs/notes/reflection)"
        )
    return ignored


def _noted(root: Path, session: str | None) -> Verdict | None:
    """In CI there are no verdict files: the verdict came as a git note (verdict_notes.py)."""
    from reflection_core.consumers import verdict_notes

    verdict_notes.fetch(root)
    now = time.time()
    noted = []
    for commit, raw in verdict_notes.noted_verdicts(root):
        verdict = parse_verdict(raw, Path(f"{verdict_notes.NOTES_REF}:{commit[:12]}"))
        problem = future_problem(verdict, now)
        if problem:
            raise VerdictError(problem)
        noted.append(verdict)
    return pick_noted(noted, session)


def pick_noted(noted: list[Verdict], session: str | None) -> Verdict | None:
    """The first noted verdict (HEAD's before a pull request head's), or the first of
    `session` when one is asked for."""
    for verdict in noted:
        if not session or verdict.session_id == session:
            return verdict
    return None


def _one_line(message: str) -> str:
    """`reflection: message` safe for a terminal and a CI log: no control characters, and
    no newline that would start a line (a workflow command) the agent wrote."""
    return printable(f"reflection: {message}").replace("\n", " ")


def _say(message: str) -> None:
    sys.stderr.write(_one_line(message) + "\n")


def _fail(message: str, ci: bool) -> int:
    _say(message)
    if ci:
        sys.stdout.write(f"::error::{_one_line(message)}\n")
    return 1
