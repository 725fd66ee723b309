"""The guard registry: one table of reflection's git guards.

Everything that names a guard is derived from GUARDS: the pre-commit manifest
(`.pre-commit-hooks.yaml`), the console scripts in pyproject.toml, the entries
`reflection init --pre-commit` writes, the checks the native git hooks run (in
table order, per hook type) and the `reflection check ... --ci` commands.
tests/unit/test_guards_registry.py holds the files in step with this table.

Adding a guard: one row here, its module (a `main(argv)` console script and a
`native(root, cfg, push)` function for the native hooks), then
`python -m reflection_core.guards.registry --write` to regenerate the manifest.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from reflection_core.records import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from reflection_core.config import Config
    from reflection_core.guards.branches import PushedRef

HOOK_TYPES = ("pre-commit", "pre-merge-commit", "pre-push")
MINIMUM_PRE_COMMIT = "3.2.0"


@record(frozen=True)
class PushContext:
    """What git tells a native pre-push hook: the remote and every pushed ref."""

    remote: str
    refs: Sequence[PushedRef]


@record(frozen=True)
class Guard:
    """One git guard; `id` is also its console script and its pre-commit hook id."""

    id: str
    name: str
    description: str
    module: str  # holds `main(argv) -> int` (console script) and `native(root, cfg, push)`
    stages: tuple[str, ...]  # git hook types it runs in
    ci_check: str | None  # `reflection check <ci_check> --ci` runs it in CI

    @property
    def script_target(self) -> str:
        return f"{self.module}:main"

    def native(self) -> Callable[[Path, Config, PushContext | None], int]:
        """The function the native hooks call: (root, config, push refs or None) -> status."""
        fn: Any = importlib.import_module(self.module).native
        return fn


GUARDS: tuple[Guard, ...] = (
    Guard(
        id="reflection-protected-commit",
        name="refuse commits on protected branches",
        description=(
            "Refuses commits while a protected branch is checked out, with a message saying "
            "which rule matched and how to move the work to a branch."
        ),
        module="reflection_core.guards.protected_commit",
        stages=("pre-commit",),
        ci_check=None,  # CI checks out detached commits; `check branch --ci` covers pushes
    ),
    Guard(
        id="reflection-protected-merge",
        name="refuse merge commits on protected branches",
        description=(
            "Refuses `git merge` recording a merge commit while a protected branch is "
            "checked out (git runs no pre-commit hook for it), and says how to undo the "
            "merge and make it on a branch. `reflection init` installs it as a native hook, "
            "beside the framework too; with this manifest alone, also run `pre-commit "
            "install --hook-type pre-merge-commit`."
        ),
        module="reflection_core.guards.protected_merge",
        stages=("pre-merge-commit",),
        ci_check=None,  # a merge commit reaches the remote only by a push: `check branch`
    ),
    Guard(
        id="reflection-protected-push",
        name="refuse pushes to protected branches",
        description=(
            "Refuses a push that updates a protected branch (main, master, or the "
            "protected_branches config): pushing to it, creating it, forcing it, deleting it. "
            "Names the rule and the way forward. Under the pre-commit framework only the "
            "first pushed ref is visible and deletes are skipped: use `reflection init` "
            "(a native pre-push hook) for full cover."
        ),
        module="reflection_core.guards.protected_push",
        stages=("pre-push",),
        ci_check="branch",
    ),
    Guard(
        id="reflection-tests-ran",
        name="require a passing test run for the tree",
        description=(
            "The staged tree (pre-commit) or every pushed commit (pre-push) must match a "
            "tree on which the project's full test suite passed, per the test-run ledger; "
            "lists the files changed since the last passing run and the command to run."
        ),
        module="reflection_core.guards.tests_ran",
        stages=("pre-commit", "pre-push"),
        ci_check="tests",
    ),
)


def by_id(guard_id: str) -> Guard:
    for guard in GUARDS:
        if guard.id == guard_id:
            return guard
    raise KeyError(guard_id)


def for_hook(hook_type: str) -> list[Guard]:
    """The guards a native `hook_type` hook runs, in table order."""
    return [g for g in GUARDS if hook_type in g.stages]


def hook_ids() -> tuple[str, ...]:
    return tuple(g.id for g in GUARDS)


def console_scripts() -> dict[str, str]:
    """`[project.scripts]` entries for the guards (the `reflection` CLI is added by pyproject)."""
    return {g.id: g.script_target for g in GUARDS}


def _flow(items: Sequence[str]) -> str:
    return "[" + ", ".join(items) + "]"


def manifest_yaml() -> str:
    """The text of `.pre-commit-hooks.yaml` (for `repo: <reflection's url>` users)."""
    import textwrap

    out = [
        "# Generated from reflection_core/guards/registry.py: "
        "python -m reflection_core.guards.registry --write"
    ]
    for guard in GUARDS:
        description = textwrap.fill(guard.description, width=84)
        out += [
            f"- id: {guard.id}",
            f"  name: {guard.name}",
            "  description: >-",
            textwrap.indent(description, "    "),
            f"  entry: {guard.id}",
            "  language: python",
            "  pass_filenames: false",
            "  always_run: true",
            f"  stages: {_flow(guard.stages)}",
            f'  minimum_pre_commit_version: "{MINIMUM_PRE_COMMIT}"',
        ]
    return "\n".join(out) + "\n"


def local_repo_block(
    command: str, stages: Sequence[str], indent: str = "  ", item_indent: str = ""
) -> str:
    """A `repo: local` block for .pre-commit-config.yaml running the guards of `stages`.

    Each entry is `command` followed by the guard's id: the shared launcher's form
    (`sh .reflection-hook hook <id>`, install/launcher.py), which names nobody's path,
    so the file can be committed, and finds each user's installation wherever git runs
    (an IDE's commit button has no virtualenv on PATH).
    """
    pad = item_indent + indent
    dash = "-" + " " * (len(indent) - 1)
    lines = [f"{item_indent}{dash}repo: local", f"{pad}hooks:"]
    for guard in GUARDS:
        wanted = [s for s in guard.stages if s in stages]
        if not wanted:
            continue
        entry = _yaml_quote(f"{command} {guard.id}")
        lines += [
            f"{pad}- id: {guard.id}",
            f"{pad}  name: {guard.name}",
            f"{pad}  entry: {entry}",
            f"{pad}  language: system",
            f"{pad}  pass_filenames: false",
            f"{pad}  always_run: true",
            f"{pad}  stages: {_flow(wanted)}",
        ]
    return "\n".join(lines) + "\n"


def _yaml_quote(text: str) -> str:
    safe = all(c.isalnum() or c in "/._-+ " for c in text) and not text.startswith(" ")
    return text if safe else "'" + text.replace("'", "''") + "'"


def main(argv: Sequence[str] | None = None) -> int:
    """`--write` regenerates .pre-commit-hooks.yaml; without it, prints the manifest."""
    args = list(sys.argv[1:] if argv is None else argv)
    text = manifest_yaml()
    if args == ["--write"]:
        target = Path(__file__).resolve().parents[2] / ".pre-commit-hooks.yaml"
        target.write_text(text, encoding="utf-8")
        return 0
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
