"""Which ledger stamps are evidence that the project's test suite passed (pure rules).

A stamp is evidence only when all of these hold:
- it verifies (signed with this user's ledger key: not hand-written or edited);
- it is the project's test command: a pytest run recorded by the plugin when the
  project's command is pytest (or none is known), otherwise a recorded command equal to
  `tests.command` or the detected one (`npm test`, `go test ./...`, `cargo test`,
  `make test`, ...);
- it ran in full (not `-k`, `-m`, node ids, `-o python_functions=...`, PYTEST_ADDOPTS
  filters, stopped early), unless `tests.allow_partial`;
- for a pass: at least one test passed when the runner reported counts.

A stamp that is not a suite run (`true`, `sh -c '...'`, a mistyped command) is
recorded as what it is and never decides anything, pass or fail.
"""

from __future__ import annotations

import functools
import os
import shlex
from collections.abc import Sequence

from reflection_core.guards.ledger import Stamp

_PYTHONS = ("python", "python3")


def split(command: str) -> list[str]:
    return list(_split(command))


@functools.lru_cache(maxsize=256)
def _split(command: str) -> tuple[str, ...]:
    """Split once per distinct command: a check asks about the project's test command
    once per stamp it judges, and shlex is slow Python."""
    try:
        return tuple(shlex.split(command))
    except ValueError:
        return tuple(command.split())


def normalized(argv: Sequence[str]) -> list[str]:
    """argv with the program's directory dropped, and `python -m pytest`, `uv run pytest`
    and `poetry run pytest` read as `pytest`."""
    args = list(argv)
    if not args:
        return args
    head = os.path.basename(args[0])
    if (head in _PYTHONS or head.startswith("python3.")) and args[1:2] == ["-m"] and len(args) > 2:
        return normalized(args[2:])
    if head in ("uv", "poetry") and args[1:2] == ["run"] and len(args) > 2:
        return normalized(args[2:])
    if head == "py.test":
        head = "pytest"
    return [head, *args[1:]]


def is_pytest_command(command: str | Sequence[str]) -> bool:
    argv = split(command) if isinstance(command, str) else list(command)
    return normalized(argv)[:1] == ["pytest"]


def nothing_passed(stamp: Stamp) -> bool:
    """A run whose runner reported counts and not one test passed (all skipped, none ran)."""
    return bool(stamp.counts) and stamp.counts.get("passed", 0) <= 0


def not_the_suite(stamp: Stamp, project_command: str | None) -> str | None:
    """Why `stamp` is not a run of the project's test command, or None when it is."""
    if not stamp.verified:
        return _unsigned_reason()
    if stamp.source == "pytest":
        if project_command and not is_pytest_command(project_command):
            return f"a pytest run, but the project's test command is `{project_command}`"
        return None
    if project_command is None:
        return (
            f"`{stamp.command}` is not a known test command (none is configured or detected; "
            "set tests.command)"
        )
    recorded = normalized(stamp.argv or split(stamp.command))
    if recorded != normalized(split(project_command)):
        return f"`{stamp.command}` is not the project's test command `{project_command}`"
    return None


def _unsigned_reason() -> str:
    """Why a run does not verify: this user's key cannot be read (then no run can), or the
    line was not signed with it."""
    from reflection_core.guards.ledger import key_path, signing_key

    if signing_key(create=False) is None:
        return (
            f"this user's ledger key {key_path()} is missing or unreadable, so no run can be "
            "verified: make its directory writable (the pytest plugin creates the key on the "
            "next run) and run the tests again"
        )
    return (
        "not signed with this user's ledger key (written by hand, edited, copied, or "
        "recorded by a version before signatures)"
    )


def full_pass(stamp: Stamp, allow_partial: bool) -> bool:
    """A suite run that passed in full (or partially, with tests.allow_partial)."""
    return stamp.passed and (allow_partial or not stamp.partial) and not nothing_passed(stamp)


def outcome(stamp: Stamp, allow_partial: bool) -> str:
    """ "pass", "fail" or "none" for a suite run on its tree.

    A failing test fails the tree whatever the run's scope; a run that proves nothing
    (a filter, nothing collected, everything skipped, an interrupt) is "none".
    """
    if full_pass(stamp, allow_partial):
        return "pass"
    failures = stamp.counts.get("failed", 0) + stamp.counts.get("errors", 0)
    if failures > 0:
        return "fail"
    if not stamp.passed and not stamp.partial and not stamp.counts:
        return "fail"  # a runner that reports no counts (make, npm, go, cargo) and exited non-zero
    return "none"


def why_not_counted(stamp: Stamp, project_command: str | None, allow_partial: bool) -> str:
    """One phrase: why a stamp on the tree does not settle it."""
    reason = not_the_suite(stamp, project_command)
    if reason:
        return reason
    if nothing_passed(stamp):
        return f"no test passed ({format_counts(stamp)})"
    if stamp.partial and not allow_partial:
        why = "; ".join(stamp.notes) if stamp.notes else "a filter or a subset"
        return f"a partial run ({why}); set tests.allow_partial to count those"
    return "interrupted or stopped before every test ran"


def collection_errors(stamp: Stamp) -> list[str]:
    """The files a pytest run failed to collect, as its recorder noted them: a refusal
    names them, since a run that never collected a file failed rather than ran nothing."""
    return [n for n in stamp.notes if n.startswith("error collecting ") or "collection error" in n]


def format_counts(stamp: Stamp) -> str:
    return ", ".join(f"{v} {k}" for k, v in stamp.counts.items() if v) or "no tests ran"
