"""`reflection run -- CMD [ARGS...]`: run a test command and record a ledger stamp.

The command runs as an argv list (no shell), its output streams through, and
`reflection run` always exits with the command's exit status, whatever happens
to the recording (a full disk, a broken git: said on stderr, never a traceback).
The tree is fingerprinted before the command starts (the content the tests ran on).

Only the project's test command (`tests.command`, or the detected one) counts as
test evidence; anything else is recorded as what it is and never satisfies the
tests gate. A pytest command is recorded by the pytest plugin (which sees the
selection pytest actually used); otherwise the plugin is off in the child so one
run leaves one stamp.
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


def _say(message: str) -> None:
    sys.stderr.write(f"reflection: {message}\n")


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
    cfg = load_config_or_exit(str(root)) if root is not None else None
    tree = None
    plugin_records = False
    if root is not None and cfg is not None and cfg.get("tests.ledger"):
        from reflection_core.guards.evidence import is_pytest_command

        plugin_records = is_pytest_command(argv) and bool(cfg.get("tests.pytest_plugin"))
        if not plugin_records:
            tree = _fingerprint(root, cfg)
    env = dict(os.environ) if plugin_records else {**os.environ, "REFLECTION_LEDGER": "0"}
    started = time.monotonic()
    try:
        proc = subprocess.Popen(argv, env=env)
    except OSError as exc:
        _say(f"cannot run {argv[0]!r}: {exc.strerror or exc}; nothing recorded")
        raise SystemExit(127) from None
    interrupted = False
    try:
        code = proc.wait()
    except KeyboardInterrupt:
        interrupted = True
        code = proc.wait()
    duration = time.monotonic() - started
    status = code if code >= 0 else 128 - code  # killed by signal N: 128 + N
    if root is not None and cfg is not None and tree is not None:
        try:
            _record(root, cfg, argv, code, duration, tree, interrupted)
        except Exception as exc:  # a full disk must not change the command's status
            _say(
                f"could not record this run in the test ledger ({type(exc).__name__}: {exc}); "
                f"the command exited {status}"
            )
    elif plugin_records:
        pass  # the pytest plugin recorded (or explained) the run
    elif root is None and not recording_off:
        _say("not inside a git repository; the run was not recorded.")
    raise SystemExit(status)


def _fingerprint(root: Path, cfg: Config) -> str | None:
    from reflection_core.guards.fingerprint import worktree_tree

    try:
        return worktree_tree(root, cfg.get("tests.fingerprint_exclude"))
    except Exception as exc:  # git failing, a full disk for the temporary index
        _say(f"cannot fingerprint the tree ({type(exc).__name__}: {exc}); not recording")
        return None


def _record(
    root: Path,
    cfg: Config,
    argv: list[str],
    code: int,
    duration: float,
    tree: str,
    interrupted: bool,
) -> None:
    from reflection_core.guards.evidence import not_the_suite
    from reflection_core.guards.ledger import record_run
    from reflection_core.guards.runners import narrowing_notes
    from reflection_core.guards.tests_ran import project_test_command

    notes = narrowing_notes(argv, os.environ)
    if interrupted:
        notes.append("interrupted")
    stamp = record_run(
        root,
        shlex.join(argv),
        code,
        duration,
        partial=bool(notes),
        source="run",
        tree=tree,
        argv=argv,
        notes=notes,
        exclude=cfg.get("tests.fingerprint_exclude"),
        max_entries=cfg.get("tests.max_entries"),
    )
    state = "passed" if stamp.passed else f"failed (exit {code})"
    why_not = not_the_suite(stamp, project_test_command(root, cfg))
    if why_not:
        _say(
            f"recorded a run that {state} on tree {tree[:12]}; it is not test evidence: {why_not}."
        )
        return
    scope = f"partial run ({'; '.join(notes)})" if notes else "full run"
    _say(f"recorded a {scope} of the test suite that {state} on tree {tree[:12]}.")
