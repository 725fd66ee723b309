"""Read, list and wait for compact verdict files (`<repo>/.reflection/verdict_<session>.json`).

The stop hook writes verdicts; everything here only reads them. A notifier and the
stop hook usually run in parallel on the same event, so "the verdict for this
stop" means a verdict written after `since` and not older than
`verdict.stale_seconds`: `is_fresh` is that rule as a pure function, and
`wait_for_verdict` polls until it holds (and the caller's `accept` agrees) or the
timeout passes. Either process may start first, so the notifier moves `since` a
grace window before its own start and lets `accept` skip verdicts it already
handled (`notify_ledger`).
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from reflection_core import paths

VERDICT_PREFIX = paths.VERDICT_PREFIX
MAX_VERDICT_BYTES = 4 * 1024 * 1024
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
    if not isinstance(data, dict):
        raise VerdictError(f"{path}: expected a JSON object, got {type(data).__name__}")
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


def read_verdict(path: Path) -> Verdict:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise VerdictError(f"{path}: cannot read: {exc.strerror}") from None
    return parse_verdict(raw, path)


def list_verdicts(root: Path) -> tuple[list[Verdict], list[str]]:
    """Every readable verdict of the repo, newest first, and a problem line per bad file."""
    directory = paths.reflection_dir(root)
    verdicts: list[Verdict] = []
    problems: list[str] = []
    try:
        candidates = sorted(directory.glob(f"{VERDICT_PREFIX}*.json"))
    except OSError:
        return [], []
    for candidate in candidates:
        try:
            verdicts.append(read_verdict(candidate))
        except VerdictError as exc:
            problems.append(str(exc))
    verdicts.sort(key=lambda v: v.created_at, reverse=True)
    return verdicts, problems


def latest_verdict(root: Path, session_id: str | None = None) -> Verdict | None:
    """The verdict of `session_id`, or the newest verdict of the repo when no session is given."""
    if session_id:
        path = paths.verdict_path(root, session_id)
        return read_verdict(path) if path.exists() else None
    verdicts, _ = list_verdicts(root)
    return verdicts[0] if verdicts else None


def is_fresh(
    verdict: Verdict, *, now: float, stale_seconds: float, since: float | None = None
) -> bool:
    """Written for this stop: not older than `stale_seconds`, and not before `since`.

    Writers may round `created_at` to whole seconds, so `since` is compared at
    second resolution: a verdict from the same second as the reader's start counts.
    """
    created = verdict.created_at.timestamp()
    if now - created > stale_seconds:
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
    that `accept` (when given) takes."""
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
    return f"{verdict.status:<16} {verdict.session_id or '?':<24} {when}{tail}"


def check_verdict(session: str | None, ci: bool) -> int:
    """`reflection check verdict [--ci]`: 0 when the verdict is complete, 1 otherwise."""
    root = paths.find_repo_root()
    if root is None:
        return _fail("not inside a git repository; run this from the repo the agent worked in", ci)
    try:
        verdict = latest_verdict(root, session) or (_noted(root, session) if ci else None)
    except VerdictError as exc:
        return _fail(f"the verdict file is unusable: {exc}", ci)
    if verdict is None:
        which = f"for session {session!r} " if session else ""
        return _fail(
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
            "push of the branch the agent worked on",
            ci,
        )
    if verdict.complete:
        sys.stdout.write(f"reflection: verdict complete ({verdict.session_id})\n")
        return 0
    reasons = "; ".join(verdict.missing) or "no reason recorded"
    steps = "; ".join(verdict.next_actions)
    message = f"verdict for session {verdict.session_id} is {verdict.status}: {reasons}"
    if steps:
        message += f". Next: {steps}"
    return _fail(message, ci)


def _noted(root: Path, session: str | None) -> Verdict | None:
    """In CI there are no verdict files: the verdict came as a git note (verdict_notes.py)."""
    from reflection_core.consumers import verdict_notes

    verdict_notes.fetch(root)
    noted = [
        parse_verdict(raw, Path(f"{verdict_notes.NOTES_REF}:{commit[:12]}"))
        for commit, raw in verdict_notes.noted_verdicts(root)
    ]
    return pick_noted(noted, session)


def pick_noted(noted: list[Verdict], session: str | None) -> Verdict | None:
    """The first noted verdict (HEAD's before a pull request head's), or the first of
    `session` when one is asked for."""
    for verdict in noted:
        if not session or verdict.session_id == session:
            return verdict
    return None


def _fail(message: str, ci: bool) -> int:
    sys.stderr.write(f"reflection: {message}\n")
    if ci:
        sys.stdout.write(f"::error::reflection: {message}\n")
    return 1
