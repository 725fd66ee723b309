"""Console-script entry point.

`reflection hook EVENT` is the hot path (every prompt, every stop): it goes
straight to the dispatcher without importing click, and so does the plain
`reflection check tests`. Everything else goes
through the click CLI. The console script calls `run`, which ends an agent
hook's process without the interpreter's teardown.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

# Agent events: the process is done once the answer is written (git events are not:
# a guard's fail-closed exit goes through the usual interpreter exit).
_AGENT_EVENTS = frozenset(
    (
        "user-prompt-submit",
        "stop",
        "subagent-stop",
        "stop-failure",
        "session-end",
        "session-start",
        "post-tool-use",
    )
)

# `reflection check tests` with only these flags skips click (anything else goes through it).
_PLAIN_CHECK_TESTS_FLAGS = frozenset(("--ci", "--staged", "--json"))


def run() -> None:
    """The `reflection` console script: `main()`, then the process exit.

    After an agent hook or the plain `reflection check tests` has written its answer, the
    interpreter's teardown (freeing every module and object, about 6 ms of CPU on every
    prompt, 5 ms after a check) is skipped: exit handlers run,
    output is flushed, and the process ends with the hook's exit code. Both run without
    the cyclic garbage collector; a stop runs it seldom."""
    args = sys.argv[1:]
    if args[:2] == ["hook", "user-prompt-submit"] or _plain_check_tests(args):
        # A short run that makes few reference cycles: the cyclic collector's passes over
        # the modules being imported (and the ledger's stamps) cost about 3 ms and free
        # next to nothing.
        import gc

        gc.disable()
    elif args[:2] in (["hook", "stop"], ["hook", "subagent-stop"]):
        # A stop's imports and decoded records make few cycles too, but a long task is
        # read in it: the collector stays on for a runaway cycle and passes once per
        # 20,000 new objects instead of 700 (about 2 ms of every stop).
        import gc

        gc.set_threshold(20_000, 10, 10)
    agent_event = len(args) >= 2 and args[0] == "hook" and args[1] in _AGENT_EVENTS
    quick_exit = agent_event or _plain_check_tests(args)
    try:
        code = main()
        if not quick_exit:
            sys.stdout.flush()
    except BrokenPipeError:
        # The reader went away (`reflection score --jsonl big.jsonl | head`): what it read
        # is what it wanted. No traceback, and no second error when Python flushes at exit.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        code = 141  # 128 + SIGPIPE, as a shell reports a command a closed pipe ended
    if quick_exit:
        import atexit

        atexit._run_exitfuncs()
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass  # the host closed the pipe: nothing more can reach it
        os._exit(code)
    sys.exit(code)


def _plain_check_tests(args: Sequence[str]) -> bool:
    return list(args[:2]) == ["check", "tests"] and set(args[2:]) <= _PLAIN_CHECK_TESTS_FLAGS


def _readable_file(path: str) -> bool:
    return path == "-" or (os.path.isfile(path) and os.access(path, os.R_OK))


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    wants_help = "--help" in args[2:] or "-h" in args[2:]  # click prints it; no hook runs
    if len(args) >= 2 and args[0] == "hook" and not args[1].startswith("-") and not wants_help:
        from reflection_core.hook_dispatch import run_hook

        return run_hook(args[1], args[2:])
    if _plain_check_tests(args):
        # Run where `git status` runs and measured against it: no click import.
        from reflection_core.guards.check_tests import check_tests

        flags = set(args[2:])
        return check_tests(
            ci="--ci" in flags, staged="--staged" in flags, rev=None, as_json="--json" in flags
        )
    if len(args) == 3 and args[:2] == ["score", "--jsonl"] and _readable_file(args[2]):
        # A batch spends its time scoring: no click import (an unreadable path goes to
        # click, which names the error).
        from reflection_core.cli.score_batch import run_plain

        return run_plain(args[2])
    from reflection_core.cli.main import cli

    try:
        result = cli.main(args=args, prog_name="reflection", standalone_mode=False)
    except SystemExit as exc:  # click raises this for --help/--version and ctx.exit()
        code = exc.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    except Exception as exc:
        import click

        if isinstance(exc, click.exceptions.Abort):
            sys.stderr.write("Aborted!\n")
            return 1
        if isinstance(exc, click.ClickException):
            exc.show()
            return exc.exit_code
        raise
    return result if isinstance(result, int) else 0


if __name__ == "__main__":
    sys.exit(main())
