"""Tell a developer who walked away that the agent is done — only when the verdict says so.

`choose_notice` is the decision (pure): a complete verdict makes a "task complete"
notice; a verdict that waits for the human makes a "waiting for you" notice; any
other incomplete verdict stays silent unless `notify.attention` (or `notify.on`)
asks for "needs attention" with the missing items. `deliver` is the shell: apprise
URLs (one delivery per URL so a failure is attributable) and the speech command, all
at once and none past the caller's deadline; the caller prints the terminal sequence
Claude Code writes to its own terminal. Messages carry a
short redacted summary, never the transcript; delivery failures are logged and
returned, never raised.
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from reflection_core import paths
from reflection_core.atomic import append_line
from reflection_core.consumers import speech
from reflection_core.lazyre import lazy
from reflection_core.redact import redact, redact_obj

DONE = "done"
NEEDS_INPUT = "needs_input"
ATTENTION = "attention"
SUMMARY_CHARS = 280
MAX_ITEMS = 3
LOG_NAME = "notify.log"
ABANDONED = "still sending at the notify deadline (hooks.deadline_seconds); abandoned"
_CONTROL = lazy(r"[\x00-\x1f\x7f-\x9f]")


@dataclass(frozen=True)
class Notice:
    """What to tell the human: a kind, a short title and a short body."""

    kind: str
    title: str
    body: str
    spoken: str  # what the speech command says (cleaned, capped)


@dataclass
class Delivery:
    """One channel's outcome; `channel` never contains a URL's secrets."""

    channel: str
    ok: bool
    error: str = ""


@dataclass
class NotifyOutcome:
    notice: Notice | None
    deliveries: list[Delivery] = field(default_factory=list)
    terminal_sequence: str | None = None
    reason: str = ""  # why nothing was sent, when nothing was


def notice_kind(verdict: dict[str, Any]) -> str:
    """done, needs_input (the agent waits for the human) or attention (anything else)."""
    if verdict.get("complete") is True:
        return DONE
    if verdict.get("status") == "waiting_for_user" or verdict.get("requires_human_action") is True:
        return NEEDS_INPUT
    return ATTENTION


def should_send(kind: str, *, on: str, attention: bool, agent_continues: bool = False) -> bool:
    """`notify.on`: complete -> done and needs_input (attention only when `notify.attention`);
    incomplete -> needs_input and attention; always -> everything. While the stop hook
    pushes the agent on, an unfinished verdict is no news (except with `always`)."""
    if on == "always":
        return True
    if agent_continues and kind != DONE:
        return False
    if on == "incomplete":
        return kind != DONE
    return kind in (DONE, NEEDS_INPUT) or (kind == ATTENTION and attention)


def choose_notice(
    verdict: dict[str, Any],
    *,
    on: str,
    attention: bool,
    last_message: str = "",
    project: str = "",
    speak_max_chars: int = 400,
    agent_continues: bool = False,
) -> Notice | None:
    """The notice for this verdict, or None when the gating says stay quiet."""
    if verdict.get("status") == "skipped":
        return None  # a stop that was not judged is no news about the task
    kind = notice_kind(verdict)
    if not should_send(kind, on=on, attention=attention, agent_continues=agent_continues):
        return None
    where = f" · {project}" if project else ""
    said = speech.clean_for_speech(redact(last_message or ""), SUMMARY_CHARS)
    if kind == DONE:
        title = f"reflection: task complete{where}"
        body = said or "The agent finished and the checks passed."
        spoken = speech.clean_for_speech(redact(last_message), speak_max_chars) or "Task complete."
    elif kind == NEEDS_INPUT:
        title = f"reflection: waiting for you{where}"
        body = said or _items("Needs", _strings(verdict.get("missing"))) or "The agent asks you."
        spoken = "The agent is waiting for your input."
    else:
        title = f"reflection: needs attention{where}"
        status = str(verdict.get("status") or "incomplete")
        body = _items(f"Not complete ({status}). Missing", _strings(verdict.get("missing")))
        next_steps = _items("Next", _strings(verdict.get("next_actions")))
        body = " ".join(part for part in (body, next_steps) if part) or f"Status: {status}."
        spoken = "The agent stopped, but the task is not complete."
    return Notice(kind=kind, title=redact(title), body=redact(body), spoken=redact(spoken))


def _strings(value: Any) -> list[str]:
    return [str(v) for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _items(label: str, items: list[str]) -> str:
    if not items:
        return ""
    shown = "; ".join(item.strip()[:120] for item in items[:MAX_ITEMS])
    more = f" (+{len(items) - MAX_ITEMS} more)" if len(items) > MAX_ITEMS else ""
    return f"{label}: {shown}{more}."


def terminal_sequence(notice: Notice) -> str:
    """A desktop notification (OSC 9) plus a bell, for Claude Code's `terminalSequence`."""
    text = _CONTROL.sub(" ", f"{notice.title}: {notice.body}")[:200]
    return f"\x1b]9;{text}\x07\x07"


def channel_label(url: str) -> str:
    """A URL's scheme only (`tgram://…`): apprise URLs carry tokens and must not be logged."""
    scheme, sep, _ = url.partition("://")
    return f"{scheme}://…" if sep else "apprise URL"


def _with_timeouts(url: str, timeout: float) -> str:
    """apprise's per-URL connect/read timeouts (`cto`, `rto`) unless the URL sets them."""
    if re.search(r"[?&](cto|rto)=", url):
        return url
    joiner = "&" if "?" in url else "?"
    return f"{url}{joiner}cto={timeout:g}&rto={timeout:g}"


Job = tuple[str, Callable[[], Delivery]]  # a channel's label, and what delivers to it


def deliver(
    notice: Notice, notify_cfg: dict[str, Any], *, deadline: float | None
) -> list[Delivery]:
    """Every configured channel except the terminal (which the caller prints), all at
    once, and none past `deadline` (a `time.monotonic()` value; None: no overall bound).
    `notify.timeout` bounds each connect and each read, not a body that trickles in, so a
    channel still going at the deadline is abandoned (its thread dies with the process)
    and reported as failed."""
    timeout = float(notify_cfg.get("timeout", 10.0))
    if deadline is not None:
        timeout = max(min(timeout, deadline - time.monotonic()), 0.1)
    urls = list(notify_cfg.get("urls") or [])
    with _apprise_log() as log:
        jobs = _apprise_jobs(urls, notice, timeout, log)
        command = notify_cfg.get("speak")
        if command:
            jobs.append(("speech", lambda: _speak(str(command), notice.spoken, timeout)))
        return run_until(jobs, deadline)


def run_until(jobs: list[Job], deadline: float | None) -> list[Delivery]:
    """Run every job in its own daemon thread; a job not done by `deadline` is a failed
    delivery. The results keep the jobs' order."""
    results: list[Delivery | None] = [None] * len(jobs)

    def run(index: int, job: Callable[[], Delivery]) -> None:
        results[index] = job()

    threads = [
        threading.Thread(target=run, args=(index, job), name=f"notify {label}", daemon=True)
        for index, (label, job) in enumerate(jobs)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(None if deadline is None else max(deadline - time.monotonic(), 0.0))
    return [
        found if found is not None else Delivery(label, False, ABANDONED)
        for found, (label, _) in zip(results, jobs, strict=True)
    ]


def _apprise_jobs(urls: list[str], notice: Notice, timeout: float, log: _ThreadLog) -> list[Job]:
    """One apprise notification per URL, so a failure is attributable."""
    if not urls:
        return []
    try:
        import apprise
    except ImportError:
        missing = "apprise is not installed (pip install apprise)"
        return [_done(Delivery(channel_label(url), False, missing)) for url in urls]
    notify_type = apprise.NotifyType.SUCCESS if notice.kind == DONE else apprise.NotifyType.WARNING

    def job(url: str) -> Job:
        label = channel_label(url)

        def send() -> Delivery:
            try:
                app = apprise.Apprise()
                if not app.add(_with_timeouts(url, timeout)):
                    return Delivery(label, False, "apprise does not accept this URL")
                ok = bool(app.notify(body=notice.body, title=notice.title, notify_type=notify_type))
                return Delivery(
                    label, ok, "" if ok else _scrub(log.mine(), urls) or "delivery failed"
                )
            except Exception as exc:  # a notifier must never take the hook down
                return Delivery(label, False, _scrub(f"{type(exc).__name__}: {exc}", urls))

        return label, send

    return [job(url) for url in urls]


def _done(delivery: Delivery) -> Job:
    return delivery.channel, lambda: delivery


def _speak(command: str, text: str, timeout: float) -> Delivery:
    try:
        speech.speak(command, text, timeout=timeout)
        return Delivery("speech", True)
    except speech.SpeechError as exc:
        return Delivery("speech", False, str(exc))


class _ThreadLog(logging.Handler):
    """apprise's warnings, kept per thread: channels deliver at once, and each reports
    only its own (another channel's message could name that channel's URL)."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.lines: dict[int | None, list[str]] = {}

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.setdefault(record.thread, []).append(record.getMessage())

    def mine(self) -> str:
        return "\n".join(self.lines.get(threading.get_ident(), []))


@contextlib.contextmanager
def _apprise_log() -> Iterator[_ThreadLog]:
    """Capture the `apprise` logger's warnings while the block runs."""
    logger = logging.getLogger("apprise")
    handler, level = _ThreadLog(), logger.level
    if logger.getEffectiveLevel() > logging.WARNING:
        logger.setLevel(logging.WARNING)
    logger.addHandler(handler)
    try:
        yield handler
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)


def _scrub(text: str, urls: list[str]) -> str:
    """Error text without any configured URL (they hold tokens), redacted, on one line."""
    for url in sorted(urls, key=len, reverse=True):
        text = text.replace(url, channel_label(url))
    return redact(" ".join(text.split()))[:300]


def decide(
    root: Path, verdict: dict[str, Any], notify_cfg: dict[str, Any], *, last_message: str = ""
) -> NotifyOutcome:
    """The notice for `verdict` and its terminal sequence, or why there is none; nothing
    is delivered yet."""
    notice = choose_notice(
        verdict,
        on=str(notify_cfg.get("on", "complete")),
        attention=bool(notify_cfg.get("attention", False)),
        last_message=last_message,
        project=root.name,
        speak_max_chars=int(notify_cfg.get("speak_max_chars", 400)),
        agent_continues=agent_continues(root, verdict),
    )
    if notice is None:
        return NotifyOutcome(None, reason=f"verdict is {verdict.get('status')}; not notifying")
    sequence = terminal_sequence(notice) if notify_cfg.get("terminal", True) else None
    return NotifyOutcome(notice, terminal_sequence=sequence)


def run_budget(hooks_deadline_seconds: float) -> float:
    """Seconds one notifier run may take, wait and deliveries together:
    `REFLECTION_HOOK_DEADLINE`, else `hooks.deadline_seconds`; 0 means no overall bound."""
    from reflection_core.hookio import env_deadline_seconds

    from_env = env_deadline_seconds()
    return from_env if from_env is not None else float(hooks_deadline_seconds)


def end_if_abandoned(outcome: NotifyOutcome) -> None:
    """A channel still sending at the deadline sits in a read no thread can stop, and
    Python's exit would wait for it (apprise delivers from a pool that exit joins): end
    the process now, output flushed."""
    if any(d.error == ABANDONED for d in outcome.deliveries):
        import os
        import sys

        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)


def notify_for_verdict(
    root: Path,
    verdict: dict[str, Any],
    notify_cfg: dict[str, Any],
    *,
    last_message: str = "",
    deadline: float | None = None,
    decided: Callable[[NotifyOutcome], None] | None = None,
) -> NotifyOutcome:
    """Decide, deliver and log one notification for `verdict`. What was decided is
    handed to `decided` (the terminal sequence goes out there) and logged before any
    delivery starts, so a notifier killed while delivering still leaves both."""
    outcome = decide(root, verdict, notify_cfg, last_message=last_message)
    if outcome.notice is not None:
        if decided is not None:
            decided(outcome)
        channels = [channel_label(url) for url in notify_cfg.get("urls") or []]
        channels += ["speech"] if notify_cfg.get("speak") else []
        log_outcome(root, verdict, outcome, sending=channels)
        outcome.deliveries = deliver(outcome.notice, notify_cfg, deadline=deadline)
    log_outcome(root, verdict, outcome)
    return outcome


def agent_continues(root: Path, verdict: dict[str, Any]) -> bool:
    """Did the stop hook push the agent on? Its full record says (`decision.should_block`)."""
    record = verdict.get("record")
    if verdict.get("complete") is True or not isinstance(record, str):
        return False
    try:
        data = json.loads((root / record).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    decision = data.get("decision") if isinstance(data, dict) else None
    return isinstance(decision, dict) and decision.get("should_block") is True


def log_outcome(
    root: Path, verdict: dict[str, Any], outcome: NotifyOutcome, *, sending: list[str] | None = None
) -> None:
    """A JSON line in `.reflection/notify.log` (no URLs, no message bodies): with `sending`,
    the channels about to be tried; else the outcome. The verdict's `created_at` says which
    stop it was about."""
    entry: dict[str, Any] = {
        "session_id": str(verdict.get("session_id") or ""),
        "verdict_created_at": verdict.get("created_at"),
        "kind": outcome.notice.kind if outcome.notice else None,
    }
    if sending is not None:
        entry["sending"] = sending
    else:
        entry.update(deliveries=[asdict(d) for d in outcome.deliveries], reason=outcome.reason)
    log_line(root, entry)


def log_line(root: Path, entry: dict[str, Any]) -> None:
    """Append `entry`, stamped with the UTC time to the millisecond (races are sub-second)."""
    now = time.time()
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(now)) + f".{int(now % 1 * 1000):03d}Z"
    line = json.dumps(redact_obj({"time": stamp, **entry}), ensure_ascii=False)
    try:
        append_line(paths.writable_reflection_dir(root) / LOG_NAME, line)
    except OSError:
        pass  # the log is evidence, not a reason to fail the hook
