"""`reflection verdict {show,list,wait}`: read the stop hook's verdict files.

Everything printed that came from a verdict file (the agent's words, file names) goes
through `terminal.printable`: a verdict cannot drive the terminal it is shown on.
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path
from typing import Any

import click

from reflection_core import paths
from reflection_core.cli.common import Seconds, load_config_or_exit
from reflection_core.consumers import verdict_files as vf
from reflection_core.terminal import printable, printable_json

EXIT_TIMEOUT = 3


@click.command("verdict")
@click.argument("action", type=click.Choice(["show", "list", "wait"]))
@click.option("--session", "session", default=None, help="Session id (default: the newest).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
@click.option(
    "--timeout",
    type=Seconds(),
    default=None,
    help="wait: seconds to wait, 0 to 86400 (default: 30).",
)
@click.option(
    "--since",
    default=None,
    help="list, wait: only verdicts written at or after this time (ISO 8601 or Unix "
    "seconds; wait's default: now, less notify.grace_seconds).",
)
def command(
    action: str, session: str | None, as_json: bool, timeout: float | None, since: str | None
) -> None:
    """Show, list or wait for verdicts.

    \b
    show   the verdict of --session, or the newest one (exit 1 when there is none)
    list   every verdict of this repo (of --session, written since --since), newest first
    wait   wait for a fresh verdict: exit 0 complete, 1 not complete, 3 timeout
    """
    started = time.time()
    if timeout is not None and action != "wait":
        raise click.UsageError(f"--timeout applies to `verdict wait`, not `verdict {action}`")
    if since is not None and action == "show":
        raise click.UsageError("--since applies to `verdict list` and `verdict wait`")
    since_ts = _parse_since(since) if since else None
    cfg = load_config_or_exit()
    root = cfg.root or paths.find_repo_root()
    if root is None:
        click.echo("reflection: not inside a git repository.", err=True)
        raise SystemExit(2)
    if action == "list":
        raise SystemExit(_list(root, as_json, session, since_ts))
    if action == "show":
        raise SystemExit(_show(root, session, as_json))
    # Without --since, a verdict written just before this command started still counts:
    # a stop hook running in parallel may finish first (the same grace as `notify`).
    # With or without it, a verdict older than verdict.stale_seconds is not this stop's.
    stale = float(cfg.get("verdict.stale_seconds"))
    grace = min(float(cfg.get("notify.grace_seconds")), stale)
    seconds = 30.0 if timeout is None else timeout
    verdict = vf.wait_for_verdict(
        root,
        session,
        since=started - grace if since_ts is None else since_ts,
        timeout=seconds,
        stale_seconds=stale,
    )
    if verdict is None:
        _say_skipped(vf.list_verdicts(root)[1])
        which = f"session {session}" if session else "this repo"
        _say(
            f"no fresh verdict for {which} within {seconds:g}s (fresh: written since "
            f"--since and at most verdict.stale_seconds = {stale:g}s ago)."
        )
        raise SystemExit(EXIT_TIMEOUT)
    _print_verdict(verdict, as_json)
    raise SystemExit(0 if verdict.complete else 1)


def _list(root: Path, as_json: bool, session: str | None, since: float | None) -> int:
    verdicts, problems = vf.list_verdicts(root)
    _say_skipped(problems)
    verdicts = [
        v
        for v in verdicts
        if (not session or v.session_id == session)
        and (since is None or v.created_at.timestamp() >= since)
    ]
    if as_json:
        _echo_json([v.data for v in verdicts])
        return 0
    if not verdicts:
        which = " matching --session/--since" if session or since is not None else ""
        click.echo(printable(f"No verdicts{which} under {paths.reflection_dir(root)}."))
        return 0
    click.echo(f"{'STATUS':<16} {'SESSION':<24} CREATED")
    for verdict in verdicts:
        click.echo(vf.summary_line(verdict))
    return 0


def _show(root: Path, session: str | None, as_json: bool) -> int:
    try:
        verdict, problems = vf.newest_verdict(root, session)
    except vf.VerdictError as exc:
        _say(str(exc))
        return 1
    _say_skipped(problems)
    if verdict is None:
        which = f"for session {session!r} " if session else ""
        _say(f"no verdict {which}under {paths.reflection_dir(root)}.")
        return 1
    _print_verdict(verdict, as_json)
    return 0


def _print_verdict(verdict: vf.Verdict, as_json: bool) -> None:
    if as_json:
        _echo_json(verdict.data)
        return
    data = verdict.data
    lines = [
        f"session   {verdict.session_id}",
        f"status    {verdict.status} (severity {data.get('severity', '?')})",
        f"category  {data.get('stop_category', '?')}",
        f"attempt   {data.get('attempt', '?')}/{data.get('max_attempts', '?')}",
        f"created   {verdict.created_at.isoformat()}",
    ]
    gates = data.get("gates")
    if isinstance(gates, dict) and gates:
        for name, gate in gates.items():
            if not isinstance(gate, dict):
                continue
            mark = "ok" if gate.get("satisfied") else ("--" if not gate.get("required") else "NO")
            lines.append(f"gate      {mark:<3} {name}: {gate.get('evidence', '')}")
    lines += [f"missing   {item}" for item in verdict.missing]
    lines += [f"next      {item}" for item in verdict.next_actions]
    if data.get("record"):
        lines.append(f"record    {data['record']}")
    for line in lines:
        click.echo(printable(line))


def _echo_json(data: Any) -> None:
    click.echo(printable_json(json.dumps(data, indent=2, ensure_ascii=False)))


def _say(message: str) -> None:
    click.echo(printable(f"reflection: {message}"), err=True)


def _say_skipped(problems: list[str]) -> None:
    for problem in problems:
        _say(f"skipped {problem}")


def _parse_since(text: str) -> float:
    try:
        moment = float(text)
    except ValueError:
        try:
            return vf.parse_timestamp(text).timestamp()
        except ValueError:
            raise click.BadParameter(
                f"{text!r} is neither ISO 8601 nor Unix seconds", param_hint="--since"
            ) from None
    if not math.isfinite(moment):
        raise click.BadParameter(f"{text!r} is not a time", param_hint="--since")
    return moment
