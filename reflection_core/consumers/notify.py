"""Tell a developer who walked away that the agent is done — only when the verdict says so.

`choose_notice` is the decision (pure): a complete verdict makes a "task complete"
notice; a verdict that waits for the human makes a "waiting for you" notice; any
other incomplete verdict stays silent unless `notify.attention` (or `notify.on`)
asks for "needs attention" with the missing items. `deliver` is the shell: apprise
URLs (one delivery per URL so a failure is attributable), the speech command and
the terminal sequence Claude Code writes to its own terminal. Messages carry a
short redacted summary, never the transcript; delivery failures are logged and
returned, never raised.
"""

from __future__ import annotations

import json
import re
import time
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


def send_apprise(urls: list[str], notice: Notice, *, timeout: float) -> list[Delivery]:
    """One apprise notification per URL; exceptions and refusals become failed deliveries."""
    if not urls:
        return []
    try:
        import apprise
    except ImportError:
        return [
            Delivery(channel_label(url), False, "apprise is not installed (pip install apprise)")
            for url in urls
        ]
    notify_type = apprise.NotifyType.SUCCESS if notice.kind == DONE else apprise.NotifyType.WARNING
    deliveries = []
    for url in urls:
        label = channel_label(url)
        try:
            app = apprise.Apprise()
            if not app.add(_with_timeouts(url, timeout)):
                deliveries.append(Delivery(label, False, "apprise does not accept this URL"))
                continue
            with apprise.LogCapture(level=apprise.logging.WARNING) as log:
                ok = bool(app.notify(body=notice.body, title=notice.title, notify_type=notify_type))
            detail = "" if ok else _scrub(log.getvalue(), url) or "delivery failed"
            deliveries.append(Delivery(label, ok, detail))
        except Exception as exc:  # a notifier must never take the hook down
            deliveries.append(Delivery(label, False, _scrub(f"{type(exc).__name__}: {exc}", url)))
    return deliveries


def _scrub(text: str, url: str) -> str:
    """Error text without the URL itself (it holds tokens), redacted, on one short line."""
    text = text.replace(url, channel_label(url))
    return redact(" ".join(text.split()))[:300]


def deliver(notice: Notice, notify_cfg: dict[str, Any]) -> list[Delivery]:
    """Every configured channel except the terminal (which the caller prints)."""
    timeout = float(notify_cfg.get("timeout", 10.0))
    deliveries = send_apprise(list(notify_cfg.get("urls") or []), notice, timeout=timeout)
    command = notify_cfg.get("speak")
    if command:
        try:
            speech.speak(command, notice.spoken, timeout=timeout)
            deliveries.append(Delivery("speech", True))
        except speech.SpeechError as exc:
            deliveries.append(Delivery("speech", False, str(exc)))
    return deliveries


def notify_for_verdict(
    root: Path, verdict: dict[str, Any], notify_cfg: dict[str, Any], *, last_message: str = ""
) -> NotifyOutcome:
    """Decide, deliver and log one notification for `verdict`."""
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
        outcome = NotifyOutcome(None, reason=f"verdict is {verdict.get('status')}; not notifying")
    else:
        sequence = terminal_sequence(notice) if notify_cfg.get("terminal", True) else None
        outcome = NotifyOutcome(notice, deliver(notice, notify_cfg), sequence)
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


def log_outcome(root: Path, verdict: dict[str, Any], outcome: NotifyOutcome) -> None:
    """One JSON line per notify run in `.reflection/notify.log` (no URLs, no message bodies);
    the verdict's `created_at` says which stop it was about."""
    entry = {
        "session_id": str(verdict.get("session_id") or ""),
        "verdict_created_at": verdict.get("created_at"),
        "kind": outcome.notice.kind if outcome.notice else None,
        "deliveries": [asdict(d) for d in outcome.deliveries],
        "reason": outcome.reason,
    }
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
