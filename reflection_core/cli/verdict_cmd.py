"""`reflection verdict {show,list,wait}`: read the stop hook's verdict files."""

from __future__ import annotations

import time
from pathlib import Path

import click

from reflection_core import paths
from reflection_core.cli.common import echo_json, load_config_or_exit
from reflection_core.consumers import verdict_files as vf

EXIT_TIMEOUT = 3


@click.command("verdict")
@click.argument("action", type=click.Choice(["show", "list", "wait"]))
@click.option("--session", "session", default=None, help="Session id (default: the newest).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
@click.option(
    "--timeout", type=float, default=30.0, show_default=True, help="wait: seconds to wait."
)
@click.option(
    "--since",
    default=None,
    help="wait: only verdicts written at or after this time (ISO 8601 or Unix seconds; "
    "default: now, less notify.grace_seconds).",
)
def command(
    action: str, session: str | None, as_json: bool, timeout: float, since: str | None
) -> None:
    """Show, list or wait for verdicts.

    \b
    show   the verdict of --session, or the newest one (exit 1 when there is none)
    list   every verdict of this repo, newest first
    wait   wait for a fresh verdict: exit 0 complete, 1 not complete, 3 timeout
    """
    started = time.time()
    cfg = load_config_or_exit()
    root = cfg.root or paths.find_repo_root()
    if root is None:
        click.echo("reflection: not inside a git repository.", err=True)
        raise SystemExit(2)
    if action == "list":
        raise SystemExit(_list(root, as_json))
    if action == "show":
        raise SystemExit(_show(root, session, as_json))
    # Without --since, a verdict written just before this command started still counts:
    # a stop hook running in parallel may finish first (the same grace as `notify`).
    stale = float(cfg.get("verdict.stale_seconds"))
    grace = min(float(cfg.get("notify.grace_seconds")), stale)
    since_ts = _parse_since(since) if since else started - grace
    verdict = vf.wait_for_verdict(
        root,
        session,
        since=since_ts,
        timeout=timeout,
        stale_seconds=max(stale, time.time() - since_ts),
    )
    if verdict is None:
        which = f"session {session}" if session else "this repo"
        click.echo(f"reflection: no fresh verdict for {which} within {timeout:g}s.", err=True)
        raise SystemExit(EXIT_TIMEOUT)
    _print_verdict(verdict, as_json)
    raise SystemExit(0 if verdict.complete else 1)


def _list(root: Path, as_json: bool) -> int:
    verdicts, problems = vf.list_verdicts(root)
    for problem in problems:
        click.echo(f"reflection: skipped {problem}", err=True)
    if as_json:
        echo_json([v.data for v in verdicts])
        return 0
    if not verdicts:
        click.echo(f"No verdicts under {paths.reflection_dir(root)}.")
        return 0
    click.echo(f"{'STATUS':<16} {'SESSION':<24} CREATED")
    for verdict in verdicts:
        click.echo(vf.summary_line(verdict))
    return 0


def _show(root: Path, session: str | None, as_json: bool) -> int:
    try:
        verdict = vf.latest_verdict(root, session)
    except vf.VerdictError as exc:
        click.echo(f"reflection: {exc}", err=True)
        return 1
    if verdict is None:
        which = f"for session {session!r} " if session else ""
        click.echo(f"reflection: no verdict {which}under {paths.reflection_dir(root)}.", err=True)
        return 1
    _print_verdict(verdict, as_json)
    return 0


def _print_verdict(verdict: vf.Verdict, as_json: bool) -> None:
    if as_json:
        echo_json(verdict.data)
        return
    data = verdict.data
    click.echo(f"session   {verdict.session_id}")
    click.echo(f"status    {verdict.status} (severity {data.get('severity', '?')})")
    click.echo(f"category  {data.get('stop_category', '?')}")
    click.echo(f"attempt   {data.get('attempt', '?')}/{data.get('max_attempts', '?')}")
    click.echo(f"created   {verdict.created_at.isoformat()}")
    gates = data.get("gates")
    if isinstance(gates, dict) and gates:
        for name, gate in gates.items():
            if not isinstance(gate, dict):
                continue
            mark = "ok" if gate.get("satisfied") else ("--" if not gate.get("required") else "NO")
            click.echo(f"gate      {mark:<3} {name}: {gate.get('evidence', '')}")
    for item in verdict.missing:
        click.echo(f"missing   {item}")
    for item in verdict.next_actions:
        click.echo(f"next      {item}")
    if data.get("record"):
        click.echo(f"record    {data['record']}")


def _parse_since(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        pass
    try:
        return vf.parse_timestamp(text).timestamp()
    except ValueError:
        raise click.BadParameter(
            f"{text!r} is neither ISO 8601 nor Unix seconds", param_hint="--since"
        ) from None
