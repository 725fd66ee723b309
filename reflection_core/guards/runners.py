"""Best-effort partial-run detection for test commands recorded by `reflection run`.

A partial run (a filter, one file, one package) proves less than the full suite;
by default the tests-ran gate does not count it. Unknown runners count as full.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

from reflection_core import go_args

_PYTEST_SELECTING = ("-k", "-m", "--lf", "--last-failed", "--sw", "--stepwise", "--deselect")


def _strip_wrappers(argv: Sequence[str]) -> list[str]:
    """Drop leading `python -m`, `uv run`, `poetry run`, `npx` and env assignments."""
    args = list(argv)
    while args:
        head = os.path.basename(args[0])
        python_module = head.startswith("python") and args[1:2] == ["-m"]
        runner_run = head in ("uv", "poetry", "pdm", "hatch") and args[1:2] == ["run"]
        if python_module or runner_run:
            args = args[2:]
        elif ("=" in head and not head.startswith("-")) or head in ("npx", "pnpx", "bunx"):
            args = args[1:]
        else:
            break
    return args


def narrowing_notes(argv: Sequence[str], env: Mapping[str, str]) -> list[str]:
    """Why a `reflection run` command covers less than its runner's suite; empty when full."""
    notes = []
    if is_partial(argv):
        notes.append(f"`{' '.join(argv)}` narrows the suite")
    for name, runner in (("PYTEST_ADDOPTS", ["pytest"]), ("GOFLAGS", ["go", "test"])):
        value = env.get(name, "")
        if value and is_partial([*runner, *value.split()]):
            notes.append(f"{name}={value!r} narrows the suite")
    return notes


def is_partial(argv: Sequence[str]) -> bool:
    """True when the command visibly narrows its runner's suite."""
    args = _strip_wrappers(argv)
    if not args:
        return False
    tool = os.path.basename(args[0])
    rest = args[1:]
    if tool in ("pytest", "py.test"):
        return any(
            a in _PYTEST_SELECTING or a[:2] in ("-k", "-m") or "::" in a or a.endswith(".py")
            for a in rest
        )
    if tool == "go" and rest[:1] == ["test"]:
        flags = rest[1:]
        selecting = any(a.startswith(("-run", "--run")) for a in flags)
        return selecting or go_args.names_some_packages(flags)
    if tool == "cargo" and rest[:1] == ["test"]:
        before_sep = rest[1 : rest.index("--")] if "--" in rest else rest[1:]
        return any(not a.startswith("-") for a in before_sep)
    if tool in ("npm", "pnpm", "yarn", "bun"):
        return "--" in rest and len(rest) > rest.index("--") + 1
    if tool in ("jest", "vitest"):
        positional = [a for a in rest if not a.startswith("-") and a not in ("run", "watch")]
        return bool(positional) or any(a in ("-t", "--testNamePattern") for a in rest)
    return False
