"""`reflection analyze TRANSCRIPT.jsonl [--json]`: the stop hook's conclusion, offline."""

from __future__ import annotations

from pathlib import Path

import click

from reflection_core.cli.common import echo_json, load_config_or_exit


@click.command("analyze")
@click.argument("transcript", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the decision as JSON.")
@click.option("--cwd", type=click.Path(file_okay=False, path_type=Path), help="Repo to judge in.")
@click.option("--no-ledger", is_flag=True, help="Judge from the transcript alone.")
@click.option("--permission-mode", default=None, help="As the host would report it (e.g. plan).")
def command(
    transcript: Path, as_json: bool, cwd: Path | None, no_ledger: bool, permission_mode: str | None
) -> None:
    """What the stop hook would conclude from TRANSCRIPT, with no side effects."""
    from reflection_core.session.analyze import analyze_transcript, transcript_problem

    if not transcript.is_file():
        click.echo(f"reflection analyze: no such transcript: {transcript}", err=True)
        raise SystemExit(2)
    problem = transcript_problem(transcript)
    if problem:
        click.echo(
            f"reflection analyze: {transcript} is not a session transcript: {problem}. "
            "Pass a Claude Code or Codex session file (JSON lines).",
            err=True,
        )
        raise SystemExit(2)
    cfg = load_config_or_exit(str(cwd) if cwd else None)
    decision = analyze_transcript(
        transcript,
        cwd=cwd,
        cfg=cfg,
        use_ledger=not no_ledger,
        permission_mode=permission_mode,
    )
    from reflection_core.redact import redact, redact_obj

    if as_json:
        echo_json(redact_obj(decision.to_dict()))
        return

    def _echo(line: str) -> None:
        click.echo(redact(line))

    _echo(f"status:   {decision.status} ({decision.stop_category}), severity {decision.severity}")
    _echo(f"task:     {decision.task_type}; agent score {decision.agent_score}/5")
    for name, gate in decision.gates.items():
        mark = "ok " if gate.satisfied else ("!! " if gate.required else "-- ")
        need = "required" if gate.required else "advisory"
        _echo(f"  {mark}{name:<6} {need:<9} {gate.evidence}")
    for item in decision.missing:
        _echo(f"missing:  {item}")
    for action in decision.next_actions:
        _echo(f"next:     {action}")
    if decision.feedback:
        _echo("\nThe stop hook would block with:\n" + decision.feedback)
