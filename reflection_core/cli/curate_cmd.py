"""`reflection curate [--dry-run] [--yes]`: propose memory-file edits from the last session."""

from __future__ import annotations

from pathlib import Path

import click

from reflection_core import paths
from reflection_core.atomic import write_text_atomic
from reflection_core.cli.common import load_config_or_exit
from reflection_core.consumers import curate


@click.command("curate")
@click.option("--dry-run", is_flag=True, help="Print the proposals and diffs; write nothing.")
@click.option("--yes", "assume_yes", is_flag=True, help="Apply every proposal without asking.")
@click.option("--session", default=None, help="Session id (default: the newest verdict's).")
@click.option(
    "--transcript",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    help="Transcript JSONL (default: the path in the session's full record).",
)
@click.option(
    "--file",
    "target",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Memory file (default: CLAUDE.md, else AGENTS.md).",
)
def command(
    dry_run: bool,
    assume_yes: bool,
    session: str | None,
    transcript: Path | None,
    target: Path | None,
) -> None:
    """Propose memory-file (CLAUDE.md / AGENTS.md) edits from a session.

    Reads the session's verdicts and records, its transcript, its prompt scores and
    the git log since it started; shows each proposed diff and asks y/n. Only
    confirmed proposals are written (atomically); nothing else is run or changed.
    """
    cfg = load_config_or_exit()
    root = cfg.root or paths.find_repo_root()
    if root is None:
        click.echo("reflection: not inside a git repository.", err=True)
        raise SystemExit(2)
    memory_path = target or curate.memory_file(root)
    evidence = curate.gather(
        root, session_id=session, transcript=transcript, test_command=cfg.get("tests.command")
    )
    for warning in evidence.warnings:
        click.echo(f"reflection: {warning}", err=True)
    try:
        before = memory_path.read_text(encoding="utf-8") if memory_path.exists() else ""
    except (OSError, UnicodeDecodeError) as exc:
        click.echo(f"reflection: cannot read {memory_path}: {exc}", err=True)
        raise SystemExit(2) from None
    proposals = curate.propose(evidence, before)
    which = evidence.session_id or "no session found"
    if not proposals:
        click.echo(f"No proposals for {memory_path.name} (session: {which}).")
        return
    click.echo(f"{len(proposals)} proposal(s) for {memory_path.name} (session: {which}).")
    accepted: list[curate.Proposal] = []
    for number, proposal in enumerate(proposals, 1):
        current = curate.apply_proposals(before, accepted)
        diff = curate.render_diff(
            memory_path.name, current, curate.apply_proposals(current, [proposal])
        )
        click.echo(f"\n[{number}/{len(proposals)}] {proposal.title} — {proposal.evidence}")
        click.echo(diff.rstrip("\n"))
        if dry_run:
            continue
        if assume_yes or click.confirm("Apply this change?", default=False):
            accepted.append(proposal)
    if dry_run:
        click.echo("\nDry run: nothing written.")
        return
    if not accepted:
        click.echo(f"\nNothing applied; {memory_path.name} is unchanged.")
        return
    write_text_atomic(memory_path, curate.apply_proposals(before, accepted))
    click.echo(f"\nApplied {len(accepted)} of {len(proposals)} to {memory_path}.")
