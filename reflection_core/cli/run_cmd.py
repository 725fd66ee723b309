"""`reflection run -- CMD [ARGS...]`: run any test command and record a ledger stamp.

The command runs as an argv list (no shell), its output streams through, and
`reflection run` exits with its exit code. The tree is fingerprinted before the
command starts (the content the tests ran on). The pytest plugin is switched off
in the child so one run leaves one stamp.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

import click

from reflection_core import paths
from reflection_core.cli.common import load_config_or_exit
from reflection_core.config import Config

_OFF = ("0", "false", "no", "off")  # REFLECTION_LEDGER values that switch recording off


@click.command("run", context_settings={"ignore_unknown_options": True})
@click.argument("args", nargs=-1, type=click.UNPROCESSED, required=True)
def command(args: tuple[str, ...]) -> None:
    """Run a test command and record a ledger stamp: reflection run -- npm test"""
    argv = list(args)
    if argv and argv[0] == "--":
        argv = argv[1:]
    if not argv:
        raise click.UsageError("expected a command after --, e.g. reflection run -- npm test")
    recording_off = os.environ.get("REFLECTION_LEDGER", "").strip().lower() in _OFF
    root = None if recording_off else paths.find_repo_root()
    tree = None
    cfg = None
    if root is not None:
        cfg = load_config_or_exit(str(root))
        if cfg.get("tests.ledger"):
            from reflection_core.guards.fingerprint import worktree_tree
            from reflection_core.guards.gitcmd import GitError

            try:
                tree = worktree_tree(root, cfg.get("tests.fingerprint_exclude"))
            except GitError as exc:
                click.echo(
                    f"reflection: cannot fingerprint the tree ({exc}); not recording.", err=True
                )
    env = {**os.environ, "REFLECTION_LEDGER": "0"}
    started = time.monotonic()
    try:
        proc = subprocess.Popen(argv, env=env)
    except OSError as exc:
        click.echo(f"reflection: cannot run {argv[0]!r}: {exc.strerror or exc}", err=True)
        raise SystemExit(127) from None
    interrupted = False
    try:
        code = proc.wait()
    except KeyboardInterrupt:
        interrupted = True
        code = proc.wait()
    duration = time.monotonic() - started
    if root is not None and cfg is not None and tree is not None:
        _record(root, cfg, argv, code, duration, tree, interrupted)
    elif root is None and not recording_off:
        click.echo("reflection: not inside a git repository; the run was not recorded.", err=True)
    raise SystemExit(code if code >= 0 else 128 - code)  # killed by signal N: 128 + N


def _record(
    root: Path,
    cfg: Config,
    argv: list[str],
    code: int,
    duration: float,
    tree: str,
    interrupted: bool,
) -> None:
    from reflection_core.guards.ledger import record_run
    from reflection_core.guards.runners import is_partial

    stamp = record_run(
        root,
        shlex.join(argv),
        code,
        duration,
        partial=interrupted or is_partial(argv),
        source="run",
        tree=tree,
        exclude=cfg.get("tests.fingerprint_exclude"),
        max_entries=cfg.get("tests.max_entries"),
    )
    state = "passed" if stamp.passed else f"failed (exit {code})"
    scope = "partial run" if stamp.partial else "full run"
    sys.stderr.write(f"reflection: recorded a {scope} that {state} on tree {tree[:12]}.\n")
