"""`reflection notify [--session ID] [--wait S]`: notify once the stop verdict is complete.

Registered on Claude Code's Stop event next to the stop hook, so it gets the hook
payload on stdin and runs in parallel with the hook that writes the verdict: with
`--wait` it waits for a verdict written after it started, or up to
`notify.grace_seconds` before (the stop hook may finish before the notifier starts).
As a hook it handles each verdict of a session at most once (`notify_ledger`), so
that window never brings back the previous stop's verdict. As a hook it prints only
`{"terminalSequence": ...}` (Claude Code writes those bytes to its own terminal,
never to the model) and always exits 0: a notifier must never fail the hook.
"""

from __future__ import annotations

import json
import os
import sqlite3
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from reflection_core import config as config_mod
from reflection_core import paths
from reflection_core.cli.common import Seconds
from reflection_core.consumers import notify as notify_mod
from reflection_core.consumers import notify_ledger
from reflection_core.consumers import verdict_files as vf
from reflection_core.hookio import (
    MAX_PAYLOAD_BYTES,
    PayloadError,
    parse_payload,
)

WAIT_SHARE = 0.8  # of the deadline at most goes to --wait; the rest is for delivery


@click.command("notify")
@click.option("--session", default=None, help="Session id (default: from the hook payload).")
@click.option(
    "--wait",
    type=Seconds(),
    default=0.0,
    show_default=True,
    help="Seconds to wait for a verdict written after this command started "
    "(or up to notify.grace_seconds before); at most 4/5 of hooks.deadline_seconds.",
)
def command(session: str | None, wait: float) -> None:
    """Send notifications for a complete verdict (chat, speech, terminal)."""
    started, clock = time.time(), time.monotonic()
    payload, payload_problem = _read_hook_payload()
    as_hook = payload is not None
    if payload_problem:
        _warn(payload_problem)
    payload = payload or {}
    cwd = payload.get("cwd") if isinstance(payload.get("cwd"), str) else os.getcwd()
    root = paths.find_repo_root(cwd)
    if root is None:
        _warn(f"{cwd} is not inside a git repository; nothing to notify about.")
        raise SystemExit(0 if as_hook else 2)
    try:
        cfg = config_mod.load(root)
    except config_mod.ConfigError as exc:
        _warn(f"configuration error, not notifying: {exc}")
        raise SystemExit(0 if as_hook else 2) from None
    # Below the 30 s `init --claude` gives the notifier.
    budget = notify_mod.run_budget(cfg.get("hooks.deadline_seconds"))
    wait = min(wait, budget * WAIT_SHARE) if budget > 0 else wait
    session = session or _payload_str(payload, "session_id") or None
    verdict, reason = _verdict_to_send(root, cfg, session, wait, started, as_hook)
    if verdict is None:
        _warn(f"{reason}; nothing sent.")
        notify_mod.log_line(root, {"session_id": session, "kind": None, "reason": reason})
        raise SystemExit(0)

    def decided(outcome: notify_mod.NotifyOutcome) -> None:
        if as_hook and outcome.terminal_sequence:  # first: the deliveries may be slow
            click.echo(json.dumps({"terminalSequence": outcome.terminal_sequence}))

    outcome = notify_mod.notify_for_verdict(
        root,
        verdict.data,
        cfg.get("notify"),
        last_message=_payload_str(payload, "last_assistant_message"),
        deadline=clock + budget if budget > 0 else None,
        decided=decided,
    )
    for failed in (d for d in outcome.deliveries if not d.ok):
        _warn(f"delivery to {failed.channel} failed: {failed.error}")
    if not as_hook:
        _report(outcome)
    notify_mod.end_if_abandoned(outcome)
    raise SystemExit(0)


def _verdict_to_send(
    root: Path,
    cfg: config_mod.Config,
    session: str | None,
    wait: float,
    started: float,
    as_hook: bool,
) -> tuple[vf.Verdict | None, str]:
    """This stop's verdict, claimed in the ledger when run as a hook; or (None, why not)."""
    stale = float(cfg.get("verdict.stale_seconds"))
    since = started - min(float(cfg.get("notify.grace_seconds")), stale)
    ledger = _open_ledger(root) if as_hook else None
    handled: list[vf.Verdict] = []  # fresh verdicts another notifier had already claimed
    try:
        verdict = _find_verdict(
            root,
            session,
            wait=wait,
            since=since,
            stale=stale if as_hook or wait > 0 else None,
            accept=_news_filter(ledger, started, handled),
        )
        within = f" within {wait:g}s" if wait > 0 else ""
        if verdict is None and handled:
            name = handled[-1].path.name
            return None, f"another notifier already handled {name}; no newer verdict{within}"
        if verdict is None:
            return None, f"no fresh verdict for {session or 'this repo'}{within}"
        if ledger is not None and not _claim(ledger, verdict):
            return None, f"another notifier already handled {verdict.path.name}"
        return verdict, ""
    finally:
        if ledger is not None:
            ledger.close()


def _find_verdict(
    root: Path,
    session: str | None,
    *,
    wait: float,
    since: float,
    stale: float | None,
    accept: Callable[[vf.Verdict], bool],
) -> vf.Verdict | None:
    """The verdict to notify about: with `wait`, a fresh one as it appears; without, the
    latest one, which must be fresh unless `stale` is None (run by hand to re-send the
    latest verdict and test the channels, however old it is)."""
    if wait > 0 and stale is not None:
        return vf.wait_for_verdict(
            root, session, since=since, timeout=wait, stale_seconds=stale, accept=accept
        )
    try:
        verdict = vf.latest_verdict(root, session)
    except vf.VerdictError as exc:
        _warn(str(exc))
        return None
    if verdict is None:
        return None
    if stale is not None and not vf.is_fresh(verdict, now=time.time(), stale_seconds=stale):
        return None
    return verdict if accept(verdict) else None


def _open_ledger(root: Path) -> notify_ledger.Ledger | None:
    """The handled-verdicts ledger; without it the notifier still notifies (fails open)."""
    try:
        return notify_ledger.Ledger.open(root)
    except (sqlite3.Error, OSError) as exc:
        _warn(f"cannot open the notify ledger ({exc}); a verdict may be notified twice")
        return None


def _news_filter(
    ledger: notify_ledger.Ledger | None, started: float, handled: list[vf.Verdict]
) -> Callable[[vf.Verdict], bool]:
    """Skip verdicts already handled (noting them in `handled`), unless written after this
    notifier started: that is this stop's verdict and another notifier has it, so the
    wait ends there (the claim then says so). One written before the start may be the
    previous stop's, and the wait goes on. A ledger that fails mid-run stops filtering."""

    def accept(verdict: vf.Verdict) -> bool:
        if ledger is None:
            return True
        try:
            if ledger.is_new(verdict):
                return True
        except sqlite3.Error as exc:
            _warn(f"notify ledger unreadable ({exc}); not skipping handled verdicts")
            return True
        if verdict not in handled:
            handled.append(verdict)
        return verdict.created_at.timestamp() >= started

    return accept


def _claim(ledger: notify_ledger.Ledger, verdict: vf.Verdict) -> bool:
    try:
        return ledger.claim(verdict)
    except sqlite3.Error as exc:
        _warn(f"cannot record the verdict as handled ({exc}); notifying anyway")
        return True


def _read_hook_payload() -> tuple[dict[str, Any] | None, str]:
    """The host's JSON payload when stdin is piped; (None, problem) when it is unusable."""
    if sys.stdin is None or sys.stdin.isatty():
        return None, ""
    raw = sys.stdin.buffer.read(MAX_PAYLOAD_BYTES + 1)
    if not raw.strip():
        return None, ""
    try:
        return parse_payload(raw), ""
    except PayloadError as exc:
        return {}, f"{exc}; using --session and the current directory instead"


def _payload_str(payload: dict[str, Any], key: str) -> str:
    value = payload.get(key)
    return value if isinstance(value, str) else ""


def _report(outcome: notify_mod.NotifyOutcome) -> None:
    if outcome.notice is None:
        click.echo(f"reflection: {outcome.reason}.")
        return
    click.echo(f"{outcome.notice.title}\n  {outcome.notice.body}")
    if not outcome.deliveries:
        click.echo("  no channels configured (notify.urls, notify.speak)")
    for delivery in outcome.deliveries:
        state = "sent" if delivery.ok else f"FAILED: {delivery.error}"
        click.echo(f"  {delivery.channel}: {state}")


def _warn(message: str) -> None:
    sys.stderr.write(f"reflection notify: {message}\n")
